package dev.idem.store.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.idem.api.IdempotencyKey;
import dev.idem.api.store.ClaimResult;
import dev.idem.api.store.ForwardingIdempotencyStore;
import dev.idem.api.store.IdempotencyStore;
import dev.idem.api.store.NonBlockingStore;
import dev.idem.api.store.StoredRecord;
import dev.idem.engine.tck.NonBlockingFaultInjectionContract;
import dev.idem.store.tck.NonBlockingStoreContract;
import dev.idem.store.tck.StoreFixture;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.FilterResult;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.PostDiscoveryFilter;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherConfig;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * The non-blocking kits must reject a broken Lettuce non-blocking form: the real store on the
 * standalone server, its form changed in one place (an answer decoded from the wrong field, a
 * completion acknowledged that never reached Redis, a claim that waits for Redis on the caller's
 * thread, caught while the fixture pauses the server). Each kit runs through the JUnit Platform
 * launcher and must fail.
 */
class LettuceNonBlockingCatchesBrokenFormsTest {

    /** A form whose find reads the step journal where the outcome is (a reply decoded from the wrong field). */
    static final class OutcomeFromJournal implements UnaryOperator<NonBlockingStore> {
        @Override
        public NonBlockingStore apply(NonBlockingStore form) {
            return new Changed(form) {
                @Override
                public CompletionStage<Optional<StoredRecord>> find(IdempotencyKey key) {
                    return form.find(key).thenApply(found -> found.map(r -> new StoredRecord(r.key(), r.state(),
                            r.fingerprint(), r.fencingToken(), r.attempt(), r.createdAt(), r.leaseExpiresAt(),
                            r.expiresAt(), r.journal(), r.outcome())));
                }
            };
        }
    }

    /** A form that acknowledges a completion it never sends. */
    static final class CompletionNeverSent implements UnaryOperator<NonBlockingStore> {
        @Override
        public NonBlockingStore apply(NonBlockingStore form) {
            return new Changed(form) {
                @Override
                public CompletionStage<Boolean> complete(IdempotencyKey key, long fencingToken, byte[] outcome,
                        Duration ttl) {
                    return CompletableFuture.completedStage(true);
                }
            };
        }
    }

    private static final String CAMPAIGN = "everyNonBlockingStoreCallFailedInTurnLeavesEachEffectOnceOneAnswerAndNoStuckKey";

    /** A form that waits for Redis's answer to a claim on the caller's thread, then returns the stage completed. */
    static final class ClaimOnTheCallersThread implements UnaryOperator<NonBlockingStore> {
        @Override
        public NonBlockingStore apply(NonBlockingStore form) {
            return new Changed(form) {
                @Override
                public CompletionStage<ClaimResult> claim(IdempotencyKey key, byte[] fingerprint, long fencingToken,
                        Duration lease, Duration ttl) {
                    return CompletableFuture.completedFuture(form.claim(key, fingerprint, fencingToken, lease, ttl)
                            .toCompletableFuture().join());
                }
            };
        }
    }

    @Test
    void theStoreKitRejectsAFormThatWaitsOnTheCallersThreadOnAPausedServer() {
        Map<String, String> failures = run(StoreKitOnClaimOnTheCallersThread.class);
        assertThat(failures).as("store kit tests failing").containsKey("eachCallReturnsBeforeItsAnswerAndCompletesLater");
    }

    @Test
    void theStoreKitRejectsAFormThatDecodesTheWrongField() {
        Map<String, String> failures = run(StoreKitOnOutcomeFromJournal.class);
        assertThat(failures).as("store kit tests failing").containsKey("aClaimThroughOneFormIsEndedThroughTheOther");
    }

    @Test
    void theStoreKitRejectsAFormThatAcknowledgesACompletionItNeverSent() {
        Map<String, String> failures = run(StoreKitOnCompletionNeverSent.class);
        assertThat(failures).as("store kit tests failing").containsKey("completedRecordIsReturnedByClaimWithItsOutcome");
    }

    @Test
    void theEngineKitRejectsAFormThatAcknowledgesACompletionItNeverSent() {
        // Not the kit's load and fingerprint-version cases: over a completion never sent they only wait out
        // their bounds before failing, and they check other things.
        Map<String, String> failures = run(EngineKitOnCompletionNeverSent.class,
                name -> !name.equals("manyWaitingDuplicatesOnHotKeysNeverTakeALiveWorkersKeyThroughTheNonBlockingForm")
                        && !name.equals("everyWaitingPathReplaysAcrossAFingerprintVersionChange"));
        assertThat(failures).as("engine kit tests failing").containsKeys(CAMPAIGN,
                "aStaleWorkersCompletionThroughTheFormIsRefused");
        assertThat(failures.get(CAMPAIGN)).contains("found the key unsettled");
    }

    static final class StoreKitOnOutcomeFromJournal extends NonBlockingStoreContract {
        @Override
        protected StoreFixture createStoreFixture() {
            return broken(new OutcomeFromJournal());
        }
    }

    static final class StoreKitOnClaimOnTheCallersThread extends NonBlockingStoreContract {
        @Override
        protected StoreFixture createStoreFixture() {
            return broken(new ClaimOnTheCallersThread());
        }
    }

    static final class StoreKitOnCompletionNeverSent extends NonBlockingStoreContract {
        @Override
        protected StoreFixture createStoreFixture() {
            return broken(new CompletionNeverSent());
        }
    }

    static final class EngineKitOnCompletionNeverSent extends NonBlockingFaultInjectionContract {
        @Override
        protected StoreFixture createFixture() {
            return broken(new CompletionNeverSent());
        }
    }

    /** The Lettuce fixture with its store's non-blocking form changed by {@code bug}. */
    private static StoreFixture broken(UnaryOperator<NonBlockingStore> bug) {
        RedisFixture real = new RedisFixture(Client.LETTUCE, false);
        IdempotencyStore store = new ForwardingIdempotencyStore(real.store()) {
            @Override
            public Optional<NonBlockingStore> nonBlocking() {
                return delegate().nonBlocking().map(bug);
            }
        };
        return new StoreFixture() {
            @Override
            public IdempotencyStore store() {
                return store;
            }

            @Override
            public IdempotencyStore otherStore() {
                return real.otherStore();
            }

            @Override
            public void advance(Duration d) {
                real.advance(d);
            }

            @Override
            public boolean clockIsSimulated() {
                return true;
            }

            @Override
            public AnswersHeld holdAnswers() throws Exception {
                return real.holdAnswers();
            }

            @Override
            public void close() {
                real.close();
            }
        };
    }

    /** The failed tests of {@code kit} by method name, with their messages. */
    private static Map<String, String> run(Class<?> kit) {
        return run(kit, name -> true);
    }

    /** The failed tests of {@code kit} among the methods {@code selected} names, by name, with their messages. */
    private static Map<String, String> run(Class<?> kit, Predicate<String> selected) {
        Map<String, String> failures = new TreeMap<>();
        TestExecutionListener listener = new TestExecutionListener() {
            @Override
            public synchronized void executionFinished(TestIdentifier id, TestExecutionResult result) {
                if (result.getStatus() == TestExecutionResult.Status.SUCCESSFUL) {
                    return;
                }
                String name = id.getSource().filter(MethodSource.class::isInstance).map(MethodSource.class::cast)
                        .map(MethodSource::getMethodName).orElse(id.getDisplayName());
                failures.merge(name, result.getThrowable().map(String::valueOf).orElse("?"), (a, b) -> a + "\n" + b);
            }
        };
        Launcher launcher = LauncherFactory.create(LauncherConfig.builder()
                .enableTestExecutionListenerAutoRegistration(false).build());
        PostDiscoveryFilter only = descriptor -> FilterResult.includedIf(descriptor.getSource()
                .filter(MethodSource.class::isInstance).map(MethodSource.class::cast)
                .map(m -> selected.test(m.getMethodName())).orElse(true));
        launcher.execute(LauncherDiscoveryRequestBuilder.request().selectors(selectClass(kit)).filters(only)
                .configurationParameter("jqwik.shrinking.default", "OFF").build(), listener);
        System.out.printf("%s: %d failed %s%n", kit.getSimpleName(), failures.size(), failures.keySet());
        return failures;
    }

    /** A form that forwards every call; a bug overrides one. */
    private static class Changed implements NonBlockingStore {
        private final NonBlockingStore form;

        Changed(NonBlockingStore form) {
            this.form = form;
        }

        @Override
        public CompletionStage<ClaimResult> claim(IdempotencyKey key, byte[] fingerprint, long fencingToken,
                Duration lease, Duration ttl) {
            return form.claim(key, fingerprint, fencingToken, lease, ttl);
        }

        @Override
        public CompletionStage<Boolean> complete(IdempotencyKey key, long fencingToken, byte[] outcome,
                Duration ttl) {
            return form.complete(key, fencingToken, outcome, ttl);
        }

        @Override
        public CompletionStage<Boolean> release(IdempotencyKey key, long fencingToken) {
            return form.release(key, fencingToken);
        }

        @Override
        public CompletionStage<Boolean> checkpoint(IdempotencyKey key, long fencingToken, byte[] journal) {
            return form.checkpoint(key, fencingToken, journal);
        }

        @Override
        public CompletionStage<Optional<Instant>> extendLease(IdempotencyKey key, long fencingToken,
                Duration lease) {
            return form.extendLease(key, fencingToken, lease);
        }

        @Override
        public CompletionStage<Optional<StoredRecord>> find(IdempotencyKey key) {
            return form.find(key);
        }
    }
}
