package dev.idem.jaxrs.internal;

import dev.idem.http.BufferedResponse;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.MessageBodyWriter;
import jakarta.ws.rs.ext.Providers;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Between Jakarta REST responses and whole responses in memory: the handler's response captured
 * (its entity written by the application's own {@link MessageBodyWriter}, as the runtime would),
 * and an answer written back as a response or an aborting {@link Response}. Not API.
 */
public final class Responses {
    private Responses() {
    }

    /**
     * Captures {@code response}: status, headers (without the framing ones) and its entity as the
     * runtime would write it, keeping at most {@code cap} body bytes (more are counted, not kept).
     * When neither the response nor the resource method names a media type, the entity is written
     * as {@code application/octet-stream} and the response says so, so the first response and its
     * replays agree.
     *
     * @param response the handler's response
     * @param providers the application's providers
     * @param resource the resource method that produced it, if known
     * @param cap the most body bytes kept
     * @return the captured response
     * @throws IOException if the entity cannot be written
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    public static BufferedResponse capture(ContainerResponseContext response, Providers providers, ResourceInfo resource,
            int cap) throws IOException {
        ByteArrayOutputStream body = BufferedResponse.bodyBuffer(cap);
        if (response.hasEntity()) {
            Object entity = response.getEntity();
            if (entity instanceof byte[] bytes) {
                body.write(bytes, 0, bytes.length);
            } else {
                MediaType type = response.getMediaType();
                if (type == null) {
                    type = produced(resource);
                    response.getHeaders().putSingle(HttpHeaders.CONTENT_TYPE, type.toString());
                }
                Annotation[] annotations = response.getEntityAnnotations() == null ? new Annotation[0]
                        : response.getEntityAnnotations();
                MessageBodyWriter writer = providers == null ? null : providers.getMessageBodyWriter(
                        entity.getClass(), response.getEntityType(), annotations, type);
                if (writer == null) {
                    throw new IllegalStateException("no MessageBodyWriter for a " + entity.getClass().getName()
                            + " as " + type);
                }
                writer.writeTo(entity, entity.getClass(), response.getEntityType(), annotations, type,
                        response.getHeaders(), body);
            }
        }
        Map<String, List<String>> headers = new LinkedHashMap<>();
        response.getStringHeaders().forEach((name, values) -> {
            if (!name.equalsIgnoreCase(HttpHeaders.CONTENT_LENGTH) && !name.equalsIgnoreCase("Transfer-Encoding")
                    && values != null) {
                headers.put(name, List.copyOf(values));
            }
        });
        return new BufferedResponse(response.getStatus(), headers, body.toByteArray());
    }

    /** The first media type the resource method (or its class) produces, else application/octet-stream. */
    private static MediaType produced(ResourceInfo resource) {
        Method method = resource == null ? null : resource.getResourceMethod();
        Produces produces = method == null ? null : method.getAnnotation(Produces.class);
        if (produces == null && method != null && resource.getResourceClass() != null) {
            produces = resource.getResourceClass().getAnnotation(Produces.class);
        }
        if (produces != null && produces.value().length > 0) {
            MediaType type = MediaType.valueOf(produces.value()[0].split(",")[0].strip());
            if (!type.isWildcardType() && !type.isWildcardSubtype()) {
                return type;
            }
        }
        return MediaType.APPLICATION_OCTET_STREAM_TYPE;
    }

    /**
     * Writes the flow's answer into the handler's response: its status, its headers only (plus
     * {@code extraHeaders}), its body.
     *
     * @param reply the answer
     * @param response the response to overwrite
     */
    static void apply(JaxrsExchange.Reply reply, ContainerResponseContext response) {
        BufferedResponse answer = reply.response();
        response.setStatus(answer.status());
        MultivaluedMap<String, Object> headers = response.getHeaders();
        headers.clear();
        answer.headers().forEach((name, values) -> headers.put(name, new ArrayList<>(values)));
        reply.extraHeaders().forEach(headers::putSingle);
        byte[] body = answer.body();
        response.setEntity(body.length == 0 ? null : body);
    }

    /**
     * The answer as a response to abort the request with, before its handler.
     *
     * @param answer the answer
     * @param extraHeaders headers to add
     * @return the response
     */
    static Response toResponse(BufferedResponse answer, Map<String, String> extraHeaders) {
        Response.ResponseBuilder b = Response.status(answer.status());
        answer.headers().forEach((name, values) -> values.forEach(v -> b.header(name, v)));
        extraHeaders.forEach((name, value) -> b.header(name, null).header(name, value));
        byte[] body = answer.body();
        if (body.length > 0) {
            b.entity(body);
        }
        return b.build();
    }
}
