package dev.idem.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.http.internal.BufferedServletResponse;
import dev.idem.http.internal.CappedBuffer;
import dev.idem.http.internal.StoredResponse;
import jakarta.servlet.http.HttpServletResponse;
import java.io.PrintWriter;
import java.lang.reflect.Proxy;
import org.junit.jupiter.api.Test;

/** The filter holds no more of a response than the store could keep (plus one byte). */
class ResponseCapTest {
    private static HttpServletResponse realResponse() {
        return (HttpServletResponse) Proxy.newProxyInstance(ResponseCapTest.class.getClassLoader(),
                new Class<?>[] {HttpServletResponse.class}, (proxy, method, args) -> {
                    throw new AssertionError("the buffered response must not touch the real one: " + method);
                });
    }

    @Test
    void aBufferKeepsNoMoreThanItsCapAndSaysSo() {
        CappedBuffer buffer = new CappedBuffer(10);
        buffer.write(new byte[7], 0, 7);
        assertThat(buffer.overflowed()).isFalse();
        buffer.write(new byte[1000], 0, 1000);
        buffer.write(1);
        assertThat(buffer.size()).isEqualTo(10);
        assertThat(buffer.written()).isEqualTo(1008);
        assertThat(buffer.overflowed()).isTrue();
    }

    @Test
    void theServletResponseBufferIsCappedWhateverTheHandlerWrites() throws Exception {
        BufferedServletResponse stream = new BufferedServletResponse(realResponse(), 65);
        for (int i = 0; i < 1000; i++) {
            stream.getOutputStream().write(new byte[1024]);
        }
        StoredResponse captured = stream.captured();
        assertThat(captured.bodyLength()).isEqualTo(65);

        BufferedServletResponse writer = new BufferedServletResponse(realResponse(), 65);
        PrintWriter w = writer.getWriter();
        for (int i = 0; i < 1000; i++) {
            w.print("x".repeat(1024));
        }
        assertThat(writer.captured().bodyLength()).isEqualTo(65);
    }
}
