package dev.idem.engine.internal;

import com.fasterxml.jackson.databind.JavaType;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.Arrays;

/**
 * A Jackson 2 {@link JavaType} as a plain {@code java.lang.reflect.Type}, for a {@code JsonCodec}
 * of another library: its raw class, with its type parameters when it has any. Not API.
 */
final class ReflectTypes {
    private ReflectTypes() {
    }

    static Type of(JavaType type) {
        if (type.isArrayType()) {
            Type component = of(type.getContentType());
            if (component instanceof Class<?> c) {
                return java.lang.reflect.Array.newInstance(c, 0).getClass();
            }
            return (GenericArrayType) () -> component;
        }
        int n = type.containedTypeCount();
        if (n == 0) {
            return type.getRawClass();
        }
        Type[] arguments = new Type[n];
        for (int i = 0; i < n; i++) {
            arguments[i] = of(type.containedType(i));
        }
        return new Parameterized(type.getRawClass(), arguments);
    }

    private record Parameterized(Class<?> raw, Type[] arguments) implements ParameterizedType {
        @Override
        public Type[] getActualTypeArguments() {
            return arguments.clone();
        }

        @Override
        public Type getRawType() {
            return raw;
        }

        @Override
        public Type getOwnerType() {
            return null;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof ParameterizedType p && raw.equals(p.getRawType()) && p.getOwnerType() == null
                    && Arrays.equals(arguments, p.getActualTypeArguments());
        }

        @Override
        public int hashCode() {
            return raw.hashCode() ^ Arrays.hashCode(arguments);
        }

        @Override
        public String toString() {
            return raw.getTypeName() + Arrays.toString(arguments).replace('[', '<').replace(']', '>');
        }
    }
}
