/** Implementation of the Jakarta REST filters; not API. */
package dev.idem.jaxrs.internal;
