package dev.idem.http;

import dev.idem.jaxrs.Idempotent;
import io.quarkus.arc.properties.IfBuildProperty;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HEAD;
import jakarta.ws.rs.OPTIONS;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The contract's resources as non-blocking endpoints: they return a stage, so Quarkus REST runs
 * them and idem's filters on the event loop; the handler's blocking part (the slow route waits on a
 * latch) runs on a pool of its own. Active with {@code contract.endpoints=reactive}.
 */
public final class ReactiveResources {
    private static final ExecutorService POOL = Executors.newCachedThreadPool();

    private ReactiveResources() {
    }

    @Path("/api")
    @Idempotent
    @IfBuildProperty(name = "contract.endpoints", stringValue = "reactive")
    public static class Api {
        @Context
        ContainerRequestContext request;

        @POST
        @Path("{name: .*}")
        public CompletionStage<Response> post(@PathParam("name") String name, byte[] body) {
            QuarkusContractApp.HANDLER_THREADS.add("request:" + Thread.currentThread().getName());
            ContractResources.Call call = ContractResources.call(request, "/api", name, body);
            return CompletableFuture.supplyAsync(call::run, POOL);
        }

        @PATCH
        @Path("{name: .*}")
        public CompletionStage<Response> patch(@PathParam("name") String name, byte[] body) {
            QuarkusContractApp.HANDLER_THREADS.add("request:" + Thread.currentThread().getName());
            ContractResources.Call call = ContractResources.call(request, "/api", name, body);
            return CompletableFuture.supplyAsync(call::run, POOL);
        }

        @PUT
        @Path("{name: .*}")
        public CompletionStage<Response> put(@PathParam("name") String name, byte[] body) {
            QuarkusContractApp.HANDLER_THREADS.add("request:" + Thread.currentThread().getName());
            ContractResources.Call call = ContractResources.call(request, "/api", name, body);
            return CompletableFuture.supplyAsync(call::run, POOL);
        }

        @DELETE
        @Path("{name: .*}")
        public CompletionStage<Response> delete(@PathParam("name") String name) {
            QuarkusContractApp.HANDLER_THREADS.add("request:" + Thread.currentThread().getName());
            ContractResources.Call call = ContractResources.call(request, "/api", name, null);
            return CompletableFuture.supplyAsync(call::run, POOL);
        }

        @GET
        @Path("{name: .*}")
        public CompletionStage<Response> get(@PathParam("name") String name) {
            QuarkusContractApp.HANDLER_THREADS.add("request:" + Thread.currentThread().getName());
            ContractResources.Call call = ContractResources.call(request, "/api", name, null);
            return CompletableFuture.supplyAsync(call::run, POOL);
        }

        @HEAD
        @Path("{name: .*}")
        public CompletionStage<Response> head(@PathParam("name") String name) {
            QuarkusContractApp.HANDLER_THREADS.add("request:" + Thread.currentThread().getName());
            ContractResources.Call call = ContractResources.call(request, "/api", name, null);
            return CompletableFuture.supplyAsync(call::run, POOL);
        }

        @OPTIONS
        @Path("{name: .*}")
        public CompletionStage<Response> options(@PathParam("name") String name) {
            QuarkusContractApp.HANDLER_THREADS.add("request:" + Thread.currentThread().getName());
            ContractResources.Call call = ContractResources.call(request, "/api", name, null);
            return CompletableFuture.supplyAsync(call::run, POOL);
        }
    }

    @Path("/anon")
    @Idempotent
    @IfBuildProperty(name = "contract.endpoints", stringValue = "reactive")
    public static class Anon {
        @Context
        ContainerRequestContext request;

        @POST
        @Path("{name: .*}")
        public CompletionStage<Response> post(@PathParam("name") String name, byte[] body) {
            QuarkusContractApp.HANDLER_THREADS.add("request:" + Thread.currentThread().getName());
            ContractResources.Call call = ContractResources.call(request, "/anon", name, body);
            return CompletableFuture.supplyAsync(call::run, POOL);
        }

        @PATCH
        @Path("{name: .*}")
        public CompletionStage<Response> patch(@PathParam("name") String name, byte[] body) {
            QuarkusContractApp.HANDLER_THREADS.add("request:" + Thread.currentThread().getName());
            ContractResources.Call call = ContractResources.call(request, "/anon", name, body);
            return CompletableFuture.supplyAsync(call::run, POOL);
        }

        @PUT
        @Path("{name: .*}")
        public CompletionStage<Response> put(@PathParam("name") String name, byte[] body) {
            QuarkusContractApp.HANDLER_THREADS.add("request:" + Thread.currentThread().getName());
            ContractResources.Call call = ContractResources.call(request, "/anon", name, body);
            return CompletableFuture.supplyAsync(call::run, POOL);
        }

        @DELETE
        @Path("{name: .*}")
        public CompletionStage<Response> delete(@PathParam("name") String name) {
            QuarkusContractApp.HANDLER_THREADS.add("request:" + Thread.currentThread().getName());
            ContractResources.Call call = ContractResources.call(request, "/anon", name, null);
            return CompletableFuture.supplyAsync(call::run, POOL);
        }

        @GET
        @Path("{name: .*}")
        public CompletionStage<Response> get(@PathParam("name") String name) {
            QuarkusContractApp.HANDLER_THREADS.add("request:" + Thread.currentThread().getName());
            ContractResources.Call call = ContractResources.call(request, "/anon", name, null);
            return CompletableFuture.supplyAsync(call::run, POOL);
        }

        @HEAD
        @Path("{name: .*}")
        public CompletionStage<Response> head(@PathParam("name") String name) {
            QuarkusContractApp.HANDLER_THREADS.add("request:" + Thread.currentThread().getName());
            ContractResources.Call call = ContractResources.call(request, "/anon", name, null);
            return CompletableFuture.supplyAsync(call::run, POOL);
        }

        @OPTIONS
        @Path("{name: .*}")
        public CompletionStage<Response> options(@PathParam("name") String name) {
            QuarkusContractApp.HANDLER_THREADS.add("request:" + Thread.currentThread().getName());
            ContractResources.Call call = ContractResources.call(request, "/anon", name, null);
            return CompletableFuture.supplyAsync(call::run, POOL);
        }
    }

    @Path("/custom")
    @Idempotent("custom")
    @IfBuildProperty(name = "contract.endpoints", stringValue = "reactive")
    public static class Custom {
        @Context
        ContainerRequestContext request;

        @POST
        @Path("{name: .*}")
        public CompletionStage<Response> post(@PathParam("name") String name, byte[] body) {
            QuarkusContractApp.HANDLER_THREADS.add("request:" + Thread.currentThread().getName());
            ContractResources.Call call = ContractResources.call(request, "/custom", name, body);
            return CompletableFuture.supplyAsync(call::run, POOL);
        }

        @PATCH
        @Path("{name: .*}")
        public CompletionStage<Response> patch(@PathParam("name") String name, byte[] body) {
            QuarkusContractApp.HANDLER_THREADS.add("request:" + Thread.currentThread().getName());
            ContractResources.Call call = ContractResources.call(request, "/custom", name, body);
            return CompletableFuture.supplyAsync(call::run, POOL);
        }

        @PUT
        @Path("{name: .*}")
        public CompletionStage<Response> put(@PathParam("name") String name, byte[] body) {
            QuarkusContractApp.HANDLER_THREADS.add("request:" + Thread.currentThread().getName());
            ContractResources.Call call = ContractResources.call(request, "/custom", name, body);
            return CompletableFuture.supplyAsync(call::run, POOL);
        }

        @DELETE
        @Path("{name: .*}")
        public CompletionStage<Response> delete(@PathParam("name") String name) {
            QuarkusContractApp.HANDLER_THREADS.add("request:" + Thread.currentThread().getName());
            ContractResources.Call call = ContractResources.call(request, "/custom", name, null);
            return CompletableFuture.supplyAsync(call::run, POOL);
        }

        @GET
        @Path("{name: .*}")
        public CompletionStage<Response> get(@PathParam("name") String name) {
            QuarkusContractApp.HANDLER_THREADS.add("request:" + Thread.currentThread().getName());
            ContractResources.Call call = ContractResources.call(request, "/custom", name, null);
            return CompletableFuture.supplyAsync(call::run, POOL);
        }

        @HEAD
        @Path("{name: .*}")
        public CompletionStage<Response> head(@PathParam("name") String name) {
            QuarkusContractApp.HANDLER_THREADS.add("request:" + Thread.currentThread().getName());
            ContractResources.Call call = ContractResources.call(request, "/custom", name, null);
            return CompletableFuture.supplyAsync(call::run, POOL);
        }

        @OPTIONS
        @Path("{name: .*}")
        public CompletionStage<Response> options(@PathParam("name") String name) {
            QuarkusContractApp.HANDLER_THREADS.add("request:" + Thread.currentThread().getName());
            ContractResources.Call call = ContractResources.call(request, "/custom", name, null);
            return CompletableFuture.supplyAsync(call::run, POOL);
        }
    }

    @Path("/final")
    @Idempotent("final")
    @IfBuildProperty(name = "contract.endpoints", stringValue = "reactive")
    public static class Final {
        @Context
        ContainerRequestContext request;

        @POST
        @Path("{name: .*}")
        public CompletionStage<Response> post(@PathParam("name") String name, byte[] body) {
            QuarkusContractApp.HANDLER_THREADS.add("request:" + Thread.currentThread().getName());
            ContractResources.Call call = ContractResources.call(request, "/final", name, body);
            return CompletableFuture.supplyAsync(call::run, POOL);
        }

        @PATCH
        @Path("{name: .*}")
        public CompletionStage<Response> patch(@PathParam("name") String name, byte[] body) {
            QuarkusContractApp.HANDLER_THREADS.add("request:" + Thread.currentThread().getName());
            ContractResources.Call call = ContractResources.call(request, "/final", name, body);
            return CompletableFuture.supplyAsync(call::run, POOL);
        }

        @PUT
        @Path("{name: .*}")
        public CompletionStage<Response> put(@PathParam("name") String name, byte[] body) {
            QuarkusContractApp.HANDLER_THREADS.add("request:" + Thread.currentThread().getName());
            ContractResources.Call call = ContractResources.call(request, "/final", name, body);
            return CompletableFuture.supplyAsync(call::run, POOL);
        }

        @DELETE
        @Path("{name: .*}")
        public CompletionStage<Response> delete(@PathParam("name") String name) {
            QuarkusContractApp.HANDLER_THREADS.add("request:" + Thread.currentThread().getName());
            ContractResources.Call call = ContractResources.call(request, "/final", name, null);
            return CompletableFuture.supplyAsync(call::run, POOL);
        }

        @GET
        @Path("{name: .*}")
        public CompletionStage<Response> get(@PathParam("name") String name) {
            QuarkusContractApp.HANDLER_THREADS.add("request:" + Thread.currentThread().getName());
            ContractResources.Call call = ContractResources.call(request, "/final", name, null);
            return CompletableFuture.supplyAsync(call::run, POOL);
        }

        @HEAD
        @Path("{name: .*}")
        public CompletionStage<Response> head(@PathParam("name") String name) {
            QuarkusContractApp.HANDLER_THREADS.add("request:" + Thread.currentThread().getName());
            ContractResources.Call call = ContractResources.call(request, "/final", name, null);
            return CompletableFuture.supplyAsync(call::run, POOL);
        }

        @OPTIONS
        @Path("{name: .*}")
        public CompletionStage<Response> options(@PathParam("name") String name) {
            QuarkusContractApp.HANDLER_THREADS.add("request:" + Thread.currentThread().getName());
            ContractResources.Call call = ContractResources.call(request, "/final", name, null);
            return CompletableFuture.supplyAsync(call::run, POOL);
        }
    }
}
