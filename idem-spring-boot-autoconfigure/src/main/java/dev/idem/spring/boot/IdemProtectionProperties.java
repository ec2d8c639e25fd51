package dev.idem.spring.boot;

import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code idem.protection.*} properties: outcome encryption and keyed fingerprints with keys
 * given in configuration. Keys are Base64 (32 random bytes: {@code openssl rand -base64 32}),
 * best given through the environment or a secret store rather than a file in the repository.
 * Neither {@link #toString()} nor any startup error shows them, and the actuator's {@code env}
 * and {@code configprops} endpoints mask them even with {@code show-values} set.
 */
@ConfigurationProperties(prefix = "idem.protection")
public class IdemProtectionProperties {
    private final Encryption encryption = new Encryption();
    private final Fingerprint fingerprint = new Fingerprint();

    /** Created by Spring. */
    public IdemProtectionProperties() {
    }

    /**
     * The {@code idem.protection.encryption.*} settings.
     *
     * @return the outcome encryption settings
     */
    public Encryption getEncryption() {
        return encryption;
    }

    /**
     * The {@code idem.protection.fingerprint.*} settings.
     *
     * @return the keyed fingerprint settings
     */
    public Fingerprint getFingerprint() {
        return fingerprint;
    }

    @Override
    public String toString() {
        return "IdemProtectionProperties[encryption=" + encryption + ", fingerprint=" + fingerprint + "]";
    }

    /** Versioned keys: ids mapped to Base64 secrets, and the id new records are written under. */
    public static class Keys {
        /** Key ids (letters, digits, '_', ':', '-') mapped to Base64 keys; none: off. */
        private Map<String, String> keys = new LinkedHashMap<>();
        /** The id of the key new records are written under; may be left out when there is one key. */
        private String currentKey;

        /** Created by Spring. */
        public Keys() {
        }

        /**
         * The keys by id.
         *
         * @return ids mapped to Base64 keys
         */
        public Map<String, String> getKeys() {
            return keys;
        }

        /**
         * Sets the keys.
         *
         * @param keys ids mapped to Base64 keys
         */
        public void setKeys(Map<String, String> keys) {
            this.keys = keys;
        }

        /**
         * The id of the current key.
         *
         * @return the id, or null to take the only key
         */
        public String getCurrentKey() {
            return currentKey;
        }

        /**
         * Sets the id of the current key.
         *
         * @param currentKey the id
         */
        public void setCurrentKey(String currentKey) {
            this.currentKey = currentKey;
        }

        /** Ids only. */
        @Override
        public String toString() {
            return "[current-key=" + currentKey + ", key ids=" + keys.keySet() + "]";
        }
    }

    /** {@code idem.protection.encryption.*}: stored outcomes and step journals encrypted with AES-GCM. */
    public static class Encryption extends Keys {
        /** Whether records stored before encryption was turned on are refused instead of read. */
        private boolean refuseUnencrypted;

        /** Created by Spring. */
        public Encryption() {
        }

        /**
         * Whether unencrypted records are refused.
         *
         * @return true to refuse them
         */
        public boolean isRefuseUnencrypted() {
            return refuseUnencrypted;
        }

        /**
         * Sets whether unencrypted records are refused (once every record older than turning
         * encryption on has expired).
         *
         * @param refuseUnencrypted true to refuse them
         */
        public void setRefuseUnencrypted(boolean refuseUnencrypted) {
            this.refuseUnencrypted = refuseUnencrypted;
        }

        @Override
        public String toString() {
            return super.toString().replace("]", ", refuse-unencrypted=" + refuseUnencrypted + "]");
        }
    }

    /** {@code idem.protection.fingerprint.*}: request fingerprints keyed with HMAC-SHA-256. */
    public static class Fingerprint extends Keys {
        /** Created by Spring. */
        public Fingerprint() {
        }
    }
}
