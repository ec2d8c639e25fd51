package dev.idem.http.internal;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A response that captures status, headers and body instead of writing them, so nothing
 * is committed before the filter decides what to send. {@code sendError} is captured as
 * that status with the message as a plain-text body (the container's error page would not
 * be replayable). Cookies go straight to the real response (never stored). Not API.
 */
public final class BufferedServletResponse extends HttpServletResponseWrapper {
    private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.RFC_1123_DATE_TIME.withZone(ZoneOffset.UTC);

    private final Map<String, List<String>> headers = new LinkedHashMap<>();
    private final CappedBuffer body;
    private int status = 200;
    private String characterEncoding;
    private ServletOutputStream stream;
    private PrintWriter writer;

    /** Wraps {@code response}, keeping at most {@code maxBodyBytes} of the body (see {@link CappedBuffer}). */
    public BufferedServletResponse(HttpServletResponse response, int maxBodyBytes) {
        super(response);
        this.body = new CappedBuffer(maxBodyBytes);
    }

    /** The captured response. */
    public StoredResponse captured() {
        if (writer != null) {
            writer.flush();
        }
        return new StoredResponse(status, headers, body.toByteArray());
    }

    // --- status

    @Override
    public void setStatus(int sc) {
        status = sc;
    }

    @Override
    public int getStatus() {
        return status;
    }

    @Override
    public void sendError(int sc) {
        sendError(sc, null);
    }

    @Override
    public void sendError(int sc, String msg) {
        resetBuffer();
        status = sc;
        headers.remove(name("Content-Type"));
        setHeader("Content-Type", "text/plain;charset=UTF-8");
        if (msg != null) {
            body.writeBytes(msg.getBytes(StandardCharsets.UTF_8));
        }
    }

    @Override
    public void sendRedirect(String location) {
        resetBuffer();
        status = 302;
        setHeader("Location", location);
    }

    // --- headers

    private String name(String name) {
        for (String existing : headers.keySet()) {
            if (existing.equalsIgnoreCase(name)) {
                return existing;
            }
        }
        return name;
    }

    @Override
    public void setHeader(String name, String value) {
        if (name == null) {
            return;
        }
        if (name.equalsIgnoreCase("Content-Length")) {
            return;
        }
        String key = name(name);
        if (value == null) {
            headers.remove(key);
        } else {
            List<String> values = new ArrayList<>();
            values.add(value);
            headers.put(key, values);
        }
    }

    @Override
    public void addHeader(String name, String value) {
        if (name == null || value == null || name.equalsIgnoreCase("Content-Length")) {
            return;
        }
        headers.computeIfAbsent(name(name), k -> new ArrayList<>()).add(value);
    }

    @Override
    public void setIntHeader(String name, int value) {
        setHeader(name, Integer.toString(value));
    }

    @Override
    public void addIntHeader(String name, int value) {
        addHeader(name, Integer.toString(value));
    }

    @Override
    public void setDateHeader(String name, long date) {
        setHeader(name, HTTP_DATE.format(Instant.ofEpochMilli(date)));
    }

    @Override
    public void addDateHeader(String name, long date) {
        addHeader(name, HTTP_DATE.format(Instant.ofEpochMilli(date)));
    }

    @Override
    public boolean containsHeader(String name) {
        return headers.containsKey(name(name));
    }

    @Override
    public String getHeader(String name) {
        List<String> values = headers.get(name(name));
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    @Override
    public Collection<String> getHeaders(String name) {
        List<String> values = headers.get(name(name));
        return values == null ? List.of() : List.copyOf(values);
    }

    @Override
    public Collection<String> getHeaderNames() {
        return List.copyOf(headers.keySet());
    }

    @Override
    public void setContentType(String type) {
        if (type == null) {
            headers.remove(name("Content-Type"));
            return;
        }
        String charset = charsetOf(type);
        if (charset != null) {
            characterEncoding = charset;
            setHeader("Content-Type", type);
        } else if (characterEncoding != null && writer != null) {
            setHeader("Content-Type", type + ";charset=" + characterEncoding);
        } else {
            setHeader("Content-Type", type);
        }
    }

    @Override
    public String getContentType() {
        return getHeader("Content-Type");
    }

    @Override
    public void setCharacterEncoding(String charset) {
        if (writer != null || charset == null) {
            return;
        }
        characterEncoding = charset;
        String type = getContentType();
        if (type != null) {
            int semi = type.indexOf(';');
            setHeader("Content-Type", (semi < 0 ? type : type.substring(0, semi)) + ";charset=" + charset);
        }
    }

    @Override
    public String getCharacterEncoding() {
        return characterEncoding != null ? characterEncoding : StandardCharsets.ISO_8859_1.name();
    }

    @Override
    public void setContentLength(int len) {
        // The length is the buffer's; it is set when the response is really sent.
    }

    @Override
    public void setContentLengthLong(long len) {
        // As setContentLength.
    }

    @Override
    public void setLocale(Locale locale) {
        if (locale != null) {
            setHeader("Content-Language", locale.toLanguageTag());
        }
    }

    // --- body

    @Override
    public ServletOutputStream getOutputStream() {
        if (writer != null) {
            throw new IllegalStateException("getWriter() was already called");
        }
        if (stream == null) {
            stream = new ServletOutputStream() {
                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setWriteListener(WriteListener listener) {
                    try {
                        listener.onWritePossible();
                    } catch (IOException e) {
                        listener.onError(e);
                    }
                }

                @Override
                public void write(int b) {
                    body.write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) {
                    body.write(b, off, len);
                }
            };
        }
        return stream;
    }

    @Override
    public PrintWriter getWriter() {
        if (stream != null) {
            throw new IllegalStateException("getOutputStream() was already called");
        }
        if (writer == null) {
            Charset charset = Charset.forName(getCharacterEncoding());
            characterEncoding = charset.name();
            String type = getContentType();
            if (type != null && charsetOf(type) == null) {
                setHeader("Content-Type", type + ";charset=" + characterEncoding);
            }
            writer = new PrintWriter(new OutputStreamWriter(body, charset), false);
        }
        return writer;
    }

    @Override
    public void flushBuffer() {
        if (writer != null) {
            writer.flush();
        }
    }

    @Override
    public void resetBuffer() {
        if (writer != null) {
            writer.flush();
        }
        body.reset();
    }

    @Override
    public void reset() {
        resetBuffer();
        headers.clear();
        status = 200;
    }

    @Override
    public boolean isCommitted() {
        return false;
    }

    private static String charsetOf(String contentType) {
        for (String part : contentType.split(";")) {
            String p = part.strip();
            if (p.regionMatches(true, 0, "charset=", 0, 8)) {
                String value = p.substring(8).strip();
                if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
                    value = value.substring(1, value.length() - 1);
                }
                return value;
            }
        }
        return null;
    }
}
