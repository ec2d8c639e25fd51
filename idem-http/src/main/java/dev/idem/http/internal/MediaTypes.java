package dev.idem.http.internal;

import java.util.Locale;

/** Media type checks shared by the fingerprint and the response filters. Not API. */
public final class MediaTypes {
    private MediaTypes() {
    }

    /** Whether {@code contentType} is {@code application/json} or {@code application/*+json}, parameters ignored. */
    public static boolean isJson(String contentType) {
        int semi = contentType.indexOf(';');
        String mime = (semi < 0 ? contentType : contentType.substring(0, semi)).strip().toLowerCase(Locale.ROOT);
        return mime.equals("application/json") || (mime.startsWith("application/") && mime.endsWith("+json"));
    }
}
