package dev.idem.spring.boot4;

import dev.idem.engine.JsonCodec;
import dev.idem.jackson3.Jackson3JsonCodec;
import dev.idem.spring.boot.IdemAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import tools.jackson.databind.json.JsonMapper;

/**
 * On Spring Boot 4, the engine writes and reads JSON with the application's Jackson 3
 * {@link JsonMapper} (its modules and {@code spring.jackson.*} settings), not a second, differently
 * configured Jackson 2 mapper. Fingerprints stay those of Jackson 2 for every request both write
 * alike ({@link Jackson3JsonCodec}).
 */
@AutoConfiguration(before = IdemAutoConfiguration.class,
        afterName = "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration")
@ConditionalOnClass({JsonMapper.class, Jackson3JsonCodec.class})
@ConditionalOnBean(JsonMapper.class)
@ConditionalOnProperty(prefix = "idem", name = "enabled", havingValue = "true", matchIfMissing = true)
public class IdemJackson3AutoConfiguration {
    /** Created by Spring. */
    public IdemJackson3AutoConfiguration() {
    }

    /**
     * The engine's codec over the application's mapper.
     *
     * @param mapper the application's Jackson 3 mapper
     * @return the codec
     */
    @Bean
    @ConditionalOnMissingBean(JsonCodec.class)
    public JsonCodec idemJsonCodec(JsonMapper mapper) {
        return Jackson3JsonCodec.of(mapper);
    }
}
