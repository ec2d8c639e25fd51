/** Implementation details of the DynamoDB store: item encoding and error translation. Not an API. */
package dev.idem.store.dynamodb.internal;
