/** Implementation details of the outbox: SQL per dialect and the shipped DDL. Not an API. */
package dev.idem.outbox.jdbc.internal;
