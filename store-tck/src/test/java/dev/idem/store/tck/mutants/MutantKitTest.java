package dev.idem.store.tck.mutants;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherConfig;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * The kit's own test, through the JUnit Platform launcher: the whole kit (contract, properties,
 * races, histories) runs against the correct store and must pass everything; against every
 * {@link Bug} the tests built to catch it run and must fail. The race mutants get no help from
 * the kit (see {@link MutantStore}): their catchers must make the race happen on their own, in
 * every run. A change to the kit that lets a mutant through fails this build.
 */
class MutantKitTest {
    private static final String HISTORIES = "concurrentHistoriesAreLinearizable";

    /** The tests that must catch each bug on every run (others may catch it too). */
    private static final Map<Bug, Set<String>> CATCHERS = Map.ofEntries(
            Map.entry(Bug.NONE, Set.of()),
            Map.entry(Bug.NON_ATOMIC_CLAIM, Set.of("lockstepClaimsOfOneKeyHaveOneWinner",
                    "lockstepTakeoversOfOneLapsedLeaseHaveOneWinner", HISTORIES)),
            Map.entry(Bug.FIND_LAGS_CLAIM, Set.of("readsAfterAnswersAreLinearizable")),
            Map.entry(Bug.EXISTING_FROM_SECOND_READ, Set.of("duplicatesRacingAReleaseNeverSeeItReleased", HISTORIES)),
            Map.entry(Bug.NON_ATOMIC_COMPLETE, Set.of("staleCompleteRacingATakeoverIsRefused", HISTORIES)),
            Map.entry(Bug.NON_ATOMIC_RELEASE, Set.of("staleReleaseRacingATakeoverIsRefused", HISTORIES)),
            Map.entry(Bug.NON_ATOMIC_EXTEND, Set.of("staleExtendRacingATakeoverIsRefused", HISTORIES)),
            Map.entry(Bug.NON_ATOMIC_CHECKPOINT, Set.of("staleCheckpointRacingATakeoverIsRefusedOrSeen", HISTORIES)),
            Map.entry(Bug.UNFENCED_COMPLETE, Set.of("foreignTokensAreRefusedOnALapsedLease")),
            Map.entry(Bug.UNFENCED_RELEASE, Set.of("foreignTokensAreRefusedOnALapsedLease")),
            Map.entry(Bug.UNFENCED_CHECKPOINT, Set.of("foreignTokensAreRefusedOnALapsedLease")),
            Map.entry(Bug.LEASE_OFF_BY_ONE, Set.of("leaseLapsesExactlyAtItsDeadline")),
            Map.entry(Bug.EXPIRY_OFF_BY_ONE, Set.of("recordsExpireExactlyAtExpiresAt")),
            Map.entry(Bug.CHECKPOINT_AT_EXPIRY, Set.of("recordsExpireExactlyAtExpiresAt")),
            Map.entry(Bug.WHOLE_SECOND_DEADLINES, Set.of("deadlinesAreKeptToTheMillisecond",
                    "leaseLapsesExactlyAtItsDeadline", "recordsExpireExactlyAtExpiresAt")),
            Map.entry(Bug.RECORD_DIES_UNDER_LEASE, Set.of("aLeaseLongerThanTheTtlKeepsTheRecordAlive")),
            Map.entry(Bug.EXTEND_KEEPS_EXPIRY, Set.of("extendingALeaseMovesTheExpiry")),
            Map.entry(Bug.EXTEND_SHORTENS_EXPIRY, Set.of("extendingALeaseNeverShortensTheRecordsLife")),
            Map.entry(Bug.COMPLETE_LOSES_OUTCOME, Set.of("completedRecordIsReturnedByClaimWithItsOutcome")),
            Map.entry(Bug.PURGE_LAPSED_LEASES, Set.of("purgeLeavesLiveRecordsAlone")),
            Map.entry(Bug.PURGE_RELEASED, Set.of("purgeLeavesLiveRecordsAlone")),
            Map.entry(Bug.WRONG_KEY_OUTCOME, Set.of("keysDifferingInOnePartAreSeparate",
                    "scopeOperationAndKeyAreIsolatedEvenWhenTheyShareDelimiters")),
            Map.entry(Bug.SCOPE_IGNORED, Set.of("keysDifferingInOnePartAreSeparate",
                    "twoScopesAlikeWithOneOperationAndKeyAreTwoRecords")),
            Map.entry(Bug.SCOPE_FOLDED, Set.of("twoScopesAlikeWithOneOperationAndKeyAreTwoRecords")),
            Map.entry(Bug.OPERATION_IGNORED, Set.of("keysDifferingInOnePartAreSeparate")),
            Map.entry(Bug.NON_BLOCKING_UNFENCED_COMPLETE, Set.of("foreignTokensAreRefusedOnALapsedLease")),
            Map.entry(Bug.NON_BLOCKING_OWN_RECORDS, Set.of("aClaimThroughOneFormIsEndedThroughTheOther", HISTORIES)),
            Map.entry(Bug.NON_BLOCKING_ON_THE_CALLERS_THREAD, Set.of("eachCallReturnsBeforeItsAnswerAndCompletesLater")),
            Map.entry(Bug.BACKED_BY_ANY_STORE, Set.of("isBackedByItselfAndThroughDecoratorsButNotByAnotherStore")),
            Map.entry(Bug.OVERSIZED_OUTCOME_CUT, Set.of("anOutcomeOverTheDeclaredLimitIsRefusedAndNothingIsStored")),
            Map.entry(Bug.CUT_ABOVE_FOUR_MIB, Set.of("outcomesAndJournalsAtTheDeclaredLimitAreStoredWhole")),
            Map.entry(Bug.RECLAIM_KEEPS_EXPIRY, Set.of("aReclaimedRecordLivesFromTheReclaim")),
            Map.entry(Bug.TAKEOVER_KEEPS_EXPIRY, Set.of("aTakenOverRecordLivesFromTheTakeover")));

    /**
     * Every bug, once; with {@code -Didem.tck.mutantRuns=N} every bug N times in a row, to check
     * that the races catch their mutants in every run on a loaded machine (CONTRIBUTING.md).
     */
    static Stream<Bug> bugs() {
        int runs = Integer.getInteger("idem.tck.mutantRuns", 1);
        return IntStream.range(0, runs).boxed().flatMap(run -> Arrays.stream(Bug.values()));
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.MethodSource("bugs")
    void theKitCatchesTheMutant(Bug bug) {
        Run run = runKit(bug);
        System.out.printf("kit against %s: %d tests, %d failed %s%n", bug, run.finished, run.failures.size(),
                run.failures.keySet());
        if (bug == Bug.NONE) {
            assertThat(run.failures).as("the correct store must pass the whole kit").isEmpty();
            assertThat(run.finished).as("tests the kit ran").isGreaterThanOrEqualTo(54);
        } else {
            assertThat(run.failures.keySet()).as("kit tests failing against %s", bug)
                    .containsAll(CATCHERS.get(bug));
        }
    }

    private static final class Run implements TestExecutionListener {
        final Map<String, String> failures = new TreeMap<>();
        int finished;

        @Override
        public synchronized void executionFinished(TestIdentifier id, TestExecutionResult result) {
            if (!id.isTest()) {
                if (result.getStatus() != TestExecutionResult.Status.SUCCESSFUL) {
                    failures.put(id.getDisplayName() + " (container)", String.valueOf(result.getThrowable()));
                }
                return;
            }
            finished++;
            if (result.getStatus() != TestExecutionResult.Status.SUCCESSFUL) {
                String name = id.getSource().filter(MethodSource.class::isInstance).map(MethodSource.class::cast)
                        .map(MethodSource::getMethodName).orElse(id.getDisplayName());
                failures.put(name, result.getThrowable().map(Throwable::getMessage).orElse("?"));
            }
        }
    }

    /**
     * The whole kit for the correct store; for a mutant, the tests that must catch it (the others
     * need not fail, and the races among them would only run their full quotas against it).
     */
    private static Run runKit(Bug bug) {
        List<DiscoverySelector> selectors = new ArrayList<>();
        for (Class<?> kit : MutantKits.kit(bug)) {
            if (bug == Bug.NONE) {
                selectors.add(selectClass(kit));
                continue;
            }
            for (String test : CATCHERS.get(bug)) {
                if (declares(kit, test)) {
                    selectors.add(selectMethod(kit, test));
                }
            }
        }
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectors)
                .configurationParameter("jqwik.database", "target/.jqwik-mutants-" + bug)
                .configurationParameter("jqwik.shrinking.default", "OFF")
                .configurationParameter("jqwik.reporting.onlyfailures", "true")
                .build();
        Launcher launcher = LauncherFactory.create(LauncherConfig.builder()
                .enableTestExecutionListenerAutoRegistration(false).build());
        Run run = new Run();
        launcher.execute(request, run);
        return run;
    }

    /** Whether {@code kit} or a superclass declares a test method named {@code test}. */
    private static boolean declares(Class<?> kit, String test) {
        for (Class<?> c = kit; c != null; c = c.getSuperclass()) {
            if (Arrays.stream(c.getDeclaredMethods()).anyMatch(m -> m.getName().equals(test))) {
                return true;
            }
        }
        return false;
    }
}
