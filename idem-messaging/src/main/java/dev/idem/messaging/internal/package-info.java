/** Implementation details of the inbox: the stored envelope. Not an API. */
package dev.idem.messaging.internal;
