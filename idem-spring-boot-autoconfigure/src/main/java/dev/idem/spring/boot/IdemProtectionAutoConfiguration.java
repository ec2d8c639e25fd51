package dev.idem.spring.boot;

import dev.idem.engine.IdempotencyEngine;
import dev.idem.engine.IdempotencyEngineBuilder;
import dev.idem.engine.protection.KeyRing;
import dev.idem.engine.protection.KeyVersion;
import dev.idem.spring.IdemConfigurationException;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Applies {@code idem.protection.*} ({@link IdemProtectionProperties}) to the auto-configured
 * engine through an {@link IdemEngineCustomizer}: outcome encryption under
 * {@code idem.protection.encryption.keys}, keyed fingerprints under
 * {@code idem.protection.fingerprint.keys}. A key that is not valid Base64 or not 16 to 64
 * bytes, a current key id that names no key, or keys without a current one fail startup with an
 * {@link IdemConfigurationException} (Boot's failure report) that names the property and the key
 * id, never the key. With the actuator, a {@link SanitizingFunction} masks every key in the {@code env} and
 * {@code configprops} endpoints, whatever {@code show-values} says: the {@code idem.protection.*.keys.*}
 * properties, and any other property (an environment variable, a secret-store entry) whose value is
 * one of the keys.
 */
@AutoConfiguration(before = IdemAutoConfiguration.class)
@ConditionalOnProperty(prefix = "idem", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(IdemProtectionProperties.class)
public class IdemProtectionAutoConfiguration {
    private static final System.Logger LOG = System.getLogger(IdemProtectionAutoConfiguration.class.getName());
    private static final Pattern KEY_PROPERTY = Pattern.compile(
            "idem\\.protection\\.(encryption|fingerprint)\\.keys(\\..*|\\[.*)", Pattern.CASE_INSENSITIVE);

    /** Created by Spring. */
    public IdemProtectionAutoConfiguration() {
    }

    /**
     * The customizer that turns on what {@code idem.protection.*} configures (nothing, if no key is given).
     *
     * @param properties the {@code idem.protection.*} settings
     * @return the customizer
     * @throws IdemConfigurationException if a key or the current key id is not valid (named, never shown)
     */
    @Bean
    public IdemEngineCustomizer idemProtectionCustomizer(IdemProtectionProperties properties) {
        KeyRing keys = ring("idem.protection.encryption", properties.getEncryption());
        KeyRing secrets = ring("idem.protection.fingerprint", properties.getFingerprint());
        boolean refuse = properties.getEncryption().isRefuseUnencrypted();
        if (refuse && keys == null) {
            throw new IdemConfigurationException("idem.protection.encryption.refuse-unencrypted",
                    "idem.protection.encryption.refuse-unencrypted=true needs idem.protection.encryption.keys:"
                            + " without keys no record could be read.",
                    "Give the outcome keys (idem.protection.encryption.keys.<id>=<Base64>), or remove"
                            + " idem.protection.encryption.refuse-unencrypted.");
        }
        if (keys != null) {
            LOG.log(System.Logger.Level.INFO, "idem: stored outcomes are encrypted under key id {0} (key ids {1})",
                    keys.current().id(), keys.ids());
        }
        if (secrets != null) {
            LOG.log(System.Logger.Level.INFO, "idem: request fingerprints are keyed with secret id {0} (ids {1})",
                    secrets.current().id(), secrets.ids());
        }
        return builder -> apply(builder, keys, secrets, refuse);
    }

    private static void apply(IdempotencyEngineBuilder builder, KeyRing keys, KeyRing secrets, boolean refuse) {
        if (keys != null) {
            builder.encryptOutcomes(keys);
        }
        if (refuse) {
            builder.refuseUnencryptedRecords();
        }
        if (secrets != null) {
            builder.keyedFingerprints(secrets);
        }
    }

    private static KeyRing ring(String prefix, IdemProtectionProperties.Keys keys) {
        if (keys.getKeys().isEmpty()) {
            if (keys.getCurrentKey() != null) {
                throw new IdemConfigurationException(prefix + ".current-key", prefix + ".current-key is '"
                        + keys.getCurrentKey() + "' but " + prefix + ".keys is empty.", "Give the keys ("
                        + prefix + ".keys.<id>=<Base64>), or remove " + prefix + ".current-key.");
            }
            return null;
        }
        for (Map.Entry<String, String> key : keys.getKeys().entrySet()) {
            try {
                KeyVersion.fromBase64(key.getKey(), Objects.requireNonNullElse(key.getValue(), ""));
            } catch (IllegalArgumentException e) {
                // KeyVersion's messages name the id and the length only, and carry no decoder text.
                String setting = prefix + ".keys." + key.getKey();
                throw new IdemConfigurationException(setting, setting + ": " + e.getMessage() + ".",
                        "Give each key as Base64 of " + KeyVersion.MIN_BYTES + " to " + KeyVersion.MAX_BYTES
                                + " random bytes (openssl rand -base64 32) under an id of letters, digits, '_',"
                                + " ':' or '-'.");
            }
        }
        try {
            return KeyRing.fromBase64(keys.getKeys(), keys.getCurrentKey());
        } catch (IllegalArgumentException e) {
            // Every key is valid by now: what is left is which one is current (ids only in the message).
            throw new IdemConfigurationException(prefix + ".current-key", prefix + ".current-key: " + e.getMessage()
                    + ".", "Name in " + prefix + ".current-key the id of the key new records are written under,"
                    + " one of " + keys.getKeys().keySet() + ".");
        }
    }

    /** Masks the keys in the actuator's endpoints, when the actuator is there. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(SanitizingFunction.class)
    static class Sanitizing {
        /**
         * Masks {@code idem.protection.*.keys.*} whatever {@code show-values} says, and every other
         * property whose value is one of those keys: the environment variable or secret-store entry a
         * placeholder such as {@code ${IDEM_OUTCOME_KEY_2026A}} resolved from (shown under
         * {@code systemEnvironment} and every other property source).
         *
         * @param properties the bound keys, whose values are masked wherever they appear
         * @return the function
         */
        @Bean
        SanitizingFunction idemKeySanitizer(IdemProtectionProperties properties) {
            return data -> KEY_PROPERTY.matcher(data.getKey()).matches()
                    || data.getValue() instanceof CharSequence value && isKey(properties, value.toString().strip())
                    ? data.withSanitizedValue() : data;
        }

        private static boolean isKey(IdemProtectionProperties properties, String value) {
            return !value.isEmpty() && (properties.getEncryption().getKeys().values().stream()
                    .anyMatch(k -> k != null && value.equals(k.strip()))
                    || properties.getFingerprint().getKeys().values().stream()
                    .anyMatch(k -> k != null && value.equals(k.strip())));
        }
    }
}
