/** Implementation details of idem-grpc; not API, may change in any release. */
package dev.idem.grpc.internal;
