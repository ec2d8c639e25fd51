package dev.idem.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.type.TypeFactory;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A result type reaches a JSON library other than Jackson 2 as the {@code java.lang.reflect.Type}
 * the JDK itself would give for it, so that library reads the same generic shape.
 */
class ReflectTypesTest {
    private static final TypeFactory TYPES = new ObjectMapper().getTypeFactory();

    private static Type converted(TypeReference<?> ref) {
        return ReflectTypes.of(TYPES.constructType(ref));
    }

    @Test
    void aPlainClassStaysItself() {
        assertThat(ReflectTypes.of(TYPES.constructType(String.class))).isEqualTo(String.class);
        assertThat(ReflectTypes.of(TYPES.constructType(String[].class))).isEqualTo(String[].class);
        assertThat(ReflectTypes.of(TYPES.constructType(int[].class))).isEqualTo(int[].class);
    }

    @Test
    void aGenericTypeEqualsTheJdksOwnInBothDirections() {
        TypeReference<Map<String, List<Integer>>> ref = new TypeReference<>() { };
        Type jdk = ref.getType();
        Type ours = converted(ref);

        assertThat(ours).isInstanceOf(ParameterizedType.class);
        ParameterizedType p = (ParameterizedType) ours;
        assertThat(p.getRawType()).isEqualTo(Map.class);
        assertThat(p.getOwnerType()).isNull();
        assertThat(p.getActualTypeArguments()).hasSize(2);
        assertThat(p.getActualTypeArguments()[0]).isEqualTo(String.class);
        assertThat(p.getActualTypeArguments()[1]).isEqualTo(((ParameterizedType) jdk).getActualTypeArguments()[1]);
        assertThat(ours).isEqualTo(jdk);
        assertThat(jdk).isEqualTo(ours);
        assertThat(ours.hashCode()).isEqualTo(jdk.hashCode());
        assertThat(ours.getTypeName()).startsWith("java.util.Map<").contains("java.lang.String")
                .contains("java.util.List<").endsWith(">>");
        // The arguments are a copy: a reader cannot change the type.
        p.getActualTypeArguments()[0] = Integer.class;
        assertThat(p.getActualTypeArguments()[0]).isEqualTo(String.class);
    }

    @Test
    void differentGenericTypesAreNotEqual() {
        Type listOfStrings = converted(new TypeReference<List<String>>() { });
        assertThat(listOfStrings).isEqualTo(converted(new TypeReference<List<String>>() { }));
        assertThat(listOfStrings).isNotEqualTo(converted(new TypeReference<List<Integer>>() { }));
        assertThat(listOfStrings).isNotEqualTo(new TypeReference<java.util.Set<String>>() { }.getType());
        assertThat(listOfStrings).isNotEqualTo(List.class);
        // An owned type (Map.Entry's owner is Map) is not a top-level one with the same arguments.
        ParameterizedType entry = (ParameterizedType) new TypeReference<Map.Entry<String, String>>() { }.getType();
        Type ownerless = converted(new TypeReference<Map.Entry<String, String>>() { });
        assertThat(entry.getOwnerType()).isNotNull();
        assertThat(ownerless).isNotEqualTo(entry);
    }

    @Test
    void anArrayOfAGenericTypeIsAGenericArrayType() {
        Type ours = converted(new TypeReference<List<String>[]>() { });
        assertThat(ours).isInstanceOf(GenericArrayType.class);
        assertThat(((GenericArrayType) ours).getGenericComponentType())
                .isEqualTo(converted(new TypeReference<List<String>>() { }));
    }
}
