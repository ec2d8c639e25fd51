package dev.idem.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/**
 * Free loopback ports for servers that must be told their port up front. Asking the OS for a
 * port and binding it later is racy in theory; with several builds on one machine it is still
 * far safer than fixed ports, and a server that loses the race fails loudly at start.
 */
public final class FreePorts {
    private FreePorts() {
    }

    /**
     * A port nobody listens on right now.
     *
     * @return the port
     */
    public static int next() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
