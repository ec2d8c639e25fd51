package dev.idem.grpc;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The contract over HTTP/2: a Netty server on a loopback port and a Netty channel. */
class NettyGrpcContractTest extends AbstractGrpcContract {
    private Server server;

    @Override
    ManagedChannel start(List<ServerServiceDefinition> services) throws Exception {
        NettyServerBuilder builder = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0),
                InsecureServerCredentials.create());
        services.forEach(builder::addService);
        server = builder.build().start();
        return Grpc.newChannelBuilderForAddress("127.0.0.1", server.getPort(), InsecureChannelCredentials.create())
                .build();
    }

    @Override
    void stop() throws Exception {
        channel.shutdownNow().awaitTermination(WAIT, TimeUnit.SECONDS);
        server.shutdownNow().awaitTermination(WAIT, TimeUnit.SECONDS);
    }
}
