package dev.idem.http.internal;

import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UnsupportedEncodingException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

/** A request whose body is served from the buffer the filter already read. Not API. */
public final class BufferedServletRequest extends HttpServletRequestWrapper {
    private final byte[] body;
    private final ByteArrayInputStream in;
    private boolean usedStream;
    private BufferedReader reader;

    /** Wraps {@code request} with {@code body}. */
    public BufferedServletRequest(HttpServletRequest request, byte[] body) {
        super(request);
        this.body = body;
        this.in = new ByteArrayInputStream(body);
    }

    @Override
    public ServletInputStream getInputStream() {
        if (reader != null) {
            throw new IllegalStateException("getReader() was already called");
        }
        usedStream = true;
        return new ServletInputStream() {
            @Override
            public boolean isFinished() {
                return in.available() == 0;
            }

            @Override
            public boolean isReady() {
                return true;
            }

            @Override
            public void setReadListener(ReadListener listener) {
                try {
                    if (!isFinished()) {
                        listener.onDataAvailable();
                    }
                    listener.onAllDataRead();
                } catch (IOException e) {
                    listener.onError(e);
                }
            }

            @Override
            public int read() {
                return in.read();
            }

            @Override
            public int read(byte[] b, int off, int len) {
                return in.read(b, off, len);
            }
        };
    }

    @Override
    public BufferedReader getReader() throws UnsupportedEncodingException {
        if (usedStream) {
            throw new IllegalStateException("getInputStream() was already called");
        }
        if (reader == null) {
            String enc = getCharacterEncoding();
            Charset charset;
            try {
                charset = enc == null ? StandardCharsets.UTF_8 : Charset.forName(enc);
            } catch (IllegalArgumentException e) {
                throw new UnsupportedEncodingException(enc);
            }
            reader = new BufferedReader(new InputStreamReader(in, charset));
        }
        return reader;
    }

    @Override
    public int getContentLength() {
        return body.length;
    }

    @Override
    public long getContentLengthLong() {
        return body.length;
    }
}
