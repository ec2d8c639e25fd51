/** Implementation details of the JDBC store: SQL per dialect, schema scripts, error mapping. Not an API. */
package dev.idem.store.jdbc.internal;
