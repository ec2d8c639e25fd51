package dev.idem.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FaultPlanTest {

    private static List<Object> sample(FaultPlan plan) {
        List<Object> out = new ArrayList<>();
        for (int k = 0; k < 200; k++) {
            for (int attempt = 1; attempt <= 4; attempt++) {
                out.add(plan.fault("key-" + k, attempt));
                out.add(plan.delay("key-" + k, attempt));
            }
        }
        return out;
    }

    @Test
    void theSameSeedGivesTheSameFaults() {
        DemoSettings settings = DemoSettings.builder().seed(99).build();

        assertThat(sample(new FaultPlan(settings))).isEqualTo(sample(new FaultPlan(settings)));
        assertThat(sample(new FaultPlan(DemoSettings.builder().seed(100).build())))
                .isNotEqualTo(sample(new FaultPlan(settings)));
    }

    @Test
    void faultsFollowTheConfiguredRatesAndStopAfterTheFaultyAttempts() {
        FaultPlan plan = new FaultPlan(DemoSettings.builder().seed(1).dropRate(0.2).badGatewayRate(0.1)
                .unavailableRate(0.1).duplicateRate(0.1).delayRate(0.1).faultyAttempts(2).build());
        Map<FaultPlan.Fault, Integer> counts = new EnumMap<>(FaultPlan.Fault.class);
        int n = 20_000;
        for (int k = 0; k < n; k++) {
            counts.merge(plan.fault("k" + k, 1), 1, Integer::sum);
            assertThat(plan.fault("k" + k, 3)).isEqualTo(FaultPlan.Fault.NONE);
            assertThat(plan.delay("k" + k, 1).toMillis()).isBetween(200L, 1500L);
        }
        assertThat(counts.get(FaultPlan.Fault.DROP_RESPONSE) / (double) n).isBetween(0.18, 0.22);
        assertThat(counts.get(FaultPlan.Fault.BAD_GATEWAY) / (double) n).isBetween(0.08, 0.12);
        assertThat(counts.get(FaultPlan.Fault.NONE) / (double) n).isBetween(0.38, 0.42);
    }
}
