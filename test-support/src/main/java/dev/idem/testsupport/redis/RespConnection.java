package dev.idem.testsupport.redis;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Just enough of the Redis protocol to set up servers without a Redis client on the class path:
 * one command at a time, replies read as text (simple strings, errors, integers, bulk strings).
 * Bounded: 2 s to connect, 10 s per reply.
 */
final class RespConnection implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    RespConnection(int port) {
        try {
            socket = new Socket();
            socket.connect(new InetSocketAddress(EmbeddedRedisServer.HOST, port), 2_000);
            socket.setSoTimeout(10_000);
            in = new BufferedInputStream(socket.getInputStream());
            out = socket.getOutputStream();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot reach redis-server on port " + port, e);
        }
    }

    /** Sends {@code command} and returns its reply as text; an error reply throws. */
    String call(List<String> command) {
        try {
            ByteArrayOutputStream request = new ByteArrayOutputStream();
            request.write(("*" + command.size() + "\r\n").getBytes(StandardCharsets.US_ASCII));
            for (String arg : command) {
                byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
                request.write(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                request.write(bytes);
                request.write("\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            out.write(request.toByteArray());
            out.flush();
            return reply(command.get(0) + " " + command.get(1));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String reply(String what) throws IOException {
        int type = in.read();
        String line = line();
        switch (type) {
            case '+':
            case ':':
                return line;
            case '-':
                throw new IllegalStateException(what + " failed: " + line);
            case '$':
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return "";
                }
                byte[] body = in.readNBytes(length + 2);
                return new String(body, 0, length, StandardCharsets.UTF_8);
            default:
                throw new IllegalStateException(what + ": unexpected reply type " + type);
        }
    }

    private String line() throws IOException {
        StringBuilder b = new StringBuilder();
        int c;
        while ((c = in.read()) != '\r') {
            if (c < 0) {
                throw new IOException("connection closed");
            }
            b.append((char) c);
        }
        in.read();
        return b.toString();
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // Closing anyway.
        }
    }
}
