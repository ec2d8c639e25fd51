package dev.idem.grpc;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The contract over grpc-java's in-process transport. */
class InProcessGrpcContractTest extends AbstractGrpcContract {
    private Server server;

    @Override
    ManagedChannel start(List<ServerServiceDefinition> services) throws Exception {
        String name = InProcessServerBuilder.generateName();
        InProcessServerBuilder builder = InProcessServerBuilder.forName(name);
        services.forEach(builder::addService);
        server = builder.build().start();
        return InProcessChannelBuilder.forName(name).build();
    }

    @Override
    void stop() throws Exception {
        channel.shutdownNow().awaitTermination(WAIT, TimeUnit.SECONDS);
        server.shutdownNow().awaitTermination(WAIT, TimeUnit.SECONDS);
    }
}
