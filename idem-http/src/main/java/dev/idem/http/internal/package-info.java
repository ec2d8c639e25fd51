/** Implementation details of idem-http; not API, may change in any release. */
package dev.idem.http.internal;
