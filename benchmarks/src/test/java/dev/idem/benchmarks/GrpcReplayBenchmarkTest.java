package dev.idem.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.benchmarks.grpc.PaymentReply;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The gRPC replay benchmark measures what it says: every idem call a replay of one answer, the plain call the handler. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class GrpcReplayBenchmarkTest {
    @Test
    void theIdemCallIsAReplayAndThePlainCallRunsTheHandler() throws Exception {
        GrpcReplayBenchmark b = new GrpcReplayBenchmark();
        b.setUp();
        try {
            assertThat(b.runs).hasValue(1);
            PaymentReply first = b.replay();
            PaymentReply second = b.replay();
            assertThat(first).isEqualTo(second);
            assertThat(first.getId()).isEqualTo("ch_1");
            assertThat(b.runs).as("replays run nothing").hasValue(1);

            PaymentReply plain = b.withoutIdem();
            assertThat(plain.getAmountCents()).isEqualTo(first.getAmountCents());
            assertThat(b.runs).hasValue(2);
        } finally {
            b.tearDown();
        }
    }
}
