package dev.idem.quarkus.deployment;

import dev.idem.jaxrs.IdempotencyFilter;
import dev.idem.jaxrs.Idempotent;
import dev.idem.quarkus.runtime.DynamoDbStoreCandidate;
import dev.idem.quarkus.runtime.IdemExceptionMapper;
import dev.idem.quarkus.runtime.IdemHealthCheck;
import dev.idem.quarkus.runtime.IdemMetrics;
import dev.idem.quarkus.runtime.IdemProducers;
import dev.idem.quarkus.runtime.IdemPurge;
import dev.idem.quarkus.runtime.IdemRecorder;
import dev.idem.quarkus.runtime.IdemRequestFilter;
import dev.idem.quarkus.runtime.IdemResponseFilter;
import dev.idem.quarkus.runtime.IdemRest;
import dev.idem.quarkus.runtime.JdbcStoreCandidate;
import dev.idem.quarkus.runtime.RedisStoreCandidate;
import io.quarkus.arc.deployment.AdditionalBeanBuildItem;
import io.quarkus.arc.deployment.BeanContainerBuildItem;
import io.quarkus.bootstrap.classloading.QuarkusClassLoader;
import io.quarkus.deployment.Capabilities;
import io.quarkus.deployment.Capability;
import io.quarkus.deployment.annotations.BuildProducer;
import io.quarkus.deployment.annotations.BuildStep;
import io.quarkus.deployment.annotations.ExecutionTime;
import io.quarkus.deployment.annotations.Record;
import io.quarkus.deployment.builditem.CombinedIndexBuildItem;
import io.quarkus.deployment.builditem.FeatureBuildItem;
import io.quarkus.deployment.builditem.nativeimage.ReflectiveClassBuildItem;
import io.quarkus.deployment.metrics.MetricsCapabilityBuildItem;
import io.quarkus.resteasy.reactive.server.spi.AnnotationsTransformerBuildItem;
import io.quarkus.resteasy.reactive.spi.ContainerRequestFilterBuildItem;
import io.quarkus.resteasy.reactive.spi.ContainerResponseFilterBuildItem;
import io.quarkus.resteasy.reactive.spi.ExceptionMapperBuildItem;
import io.quarkus.runtime.metrics.MetricsFactory;
import io.quarkus.smallrye.health.deployment.spi.HealthBuildItem;
import jakarta.ws.rs.Priorities;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.jboss.jandex.AnnotationInstance;
import org.jboss.jandex.AnnotationTransformation;
import org.jboss.jandex.AnnotationValue;
import org.jboss.jandex.DotName;

/**
 * The idem extension's build steps: the beans the application's classes allow (a store candidate
 * per adapter whose client classes are present, the metrics listener with Micrometer, the Quarkus
 * REST filters with Quarkus REST, the readiness check with SmallRye Health), and a startup check
 * of the configurations {@code @Idempotent} names.
 */
public class IdemProcessor {
    private static final String FEATURE = "idem";
    private static final DotName IDEMPOTENT = DotName.createSimple(Idempotent.class.getName());
    private static final DotName CANCELLABLE = DotName.createSimple("org.jboss.resteasy.reactive.server.Cancellable");

    /** Created by Quarkus. */
    public IdemProcessor() {
    }

    @BuildStep
    FeatureBuildItem feature() {
        return new FeatureBuildItem(FEATURE);
    }

    @BuildStep
    void beans(Capabilities capabilities, Optional<MetricsCapabilityBuildItem> metrics,
            BuildProducer<AdditionalBeanBuildItem> beans) {
        AdditionalBeanBuildItem.Builder b = AdditionalBeanBuildItem.builder().setUnremovable()
                .addBeanClasses(IdemProducers.class, IdemPurge.class);
        if (present("dev.idem.store.jdbc.JdbcIdempotencyStore") && capabilities.isPresent(Capability.AGROAL)) {
            b.addBeanClass(JdbcStoreCandidate.class);
        }
        if (present("dev.idem.store.redis.RedisIdempotencyStore") && present("redis.clients.jedis.UnifiedJedis")) {
            b.addBeanClass(RedisStoreCandidate.class);
        }
        if (present("dev.idem.store.dynamodb.DynamoDbIdempotencyStore")
                && present("software.amazon.awssdk.services.dynamodb.DynamoDbClient")) {
            b.addBeanClass(DynamoDbStoreCandidate.class);
        }
        if (present("dev.idem.micrometer.IdempotencyMetrics") && present("io.micrometer.core.instrument.MeterRegistry")
                && metrics.filter(m -> m.metricsSupported(MetricsFactory.MICROMETER)).isPresent()) {
            b.addBeanClass(IdemMetrics.class);
        }
        if (capabilities.isPresent(Capability.REST)) {
            b.addBeanClass(IdemRest.class);
        }
        beans.produce(b.build());
    }

    @BuildStep
    void filters(Capabilities capabilities, BuildProducer<ContainerRequestFilterBuildItem> requests,
            BuildProducer<ContainerResponseFilterBuildItem> responses, BuildProducer<ExceptionMapperBuildItem> mappers) {
        if (!capabilities.isPresent(Capability.REST)) {
            return;
        }
        requests.produce(new ContainerRequestFilterBuildItem.Builder(IdemRequestFilter.class.getName())
                .setPriority(IdempotencyFilter.PRIORITY).build());
        // Not cancellable: it runs when the client has gone too, so the outcome is still stored.
        responses.produce(new ContainerResponseFilterBuildItem.Builder(IdemResponseFilter.class.getName())
                .setPriority(IdempotencyFilter.PRIORITY).setCancellable(false).build());
        // Below the application's own mappers (a lower number wins), so it sees only what they leave.
        mappers.produce(new ExceptionMapperBuildItem(IdemExceptionMapper.class.getName(), Throwable.class.getName(),
                Priorities.USER + 1000, true));
    }

    /**
     * Quarkus REST cancels a pending {@code CompletionStage} or {@code Uni} when the client hangs
     * up, and then runs no response filter: a covered handler's outcome would never reach the
     * engine, and its key would stay claimed. {@code @Idempotent} methods are made
     * {@code @Cancellable(false)}, unless they say otherwise themselves.
     */
    @BuildStep
    void notCancellable(Capabilities capabilities, BuildProducer<AnnotationsTransformerBuildItem> transformers) {
        if (!capabilities.isPresent(Capability.REST)) {
            return;
        }
        transformers.produce(new AnnotationsTransformerBuildItem(AnnotationTransformation.forMethods()
                .whenMethod(m -> !m.hasDeclaredAnnotation(CANCELLABLE)
                        && (m.hasDeclaredAnnotation(IDEMPOTENT) || m.declaringClass().hasDeclaredAnnotation(IDEMPOTENT)))
                .transform(t -> t.add(AnnotationInstance.builder(CANCELLABLE).add("value", false).build()))));
    }

    @BuildStep
    void health(Capabilities capabilities, BuildProducer<HealthBuildItem> checks) {
        if (capabilities.isPresent(Capability.SMALLRYE_HEALTH)) {
            checks.produce(new HealthBuildItem(IdemHealthCheck.class.getName(), true));
        }
    }

    /** The stored HTTP response is a JSON document Jackson reads back by reflection (native images). */
    @BuildStep
    ReflectiveClassBuildItem reflection() {
        return ReflectiveClassBuildItem.builder("dev.idem.http.internal.StoredResponse").constructors().methods()
                .fields().build();
    }

    @BuildStep
    @Record(ExecutionTime.RUNTIME_INIT)
    void checkConfigurations(Capabilities capabilities, CombinedIndexBuildItem index, IdemRecorder recorder,
            BeanContainerBuildItem container) {
        if (!capabilities.isPresent(Capability.REST)) {
            return;
        }
        Set<String> names = new TreeSet<>();
        for (AnnotationInstance a : index.getIndex().getAnnotations(IDEMPOTENT)) {
            AnnotationValue value = a.value();
            names.add(value == null ? "" : value.asString());
        }
        names.remove("");
        if (!names.isEmpty()) {
            recorder.checkConfigurations(names);
        }
    }

    private static boolean present(String className) {
        return QuarkusClassLoader.isClassPresentAtRuntime(className);
    }
}
