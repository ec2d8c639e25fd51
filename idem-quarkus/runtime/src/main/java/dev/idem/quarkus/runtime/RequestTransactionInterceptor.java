package dev.idem.quarkus.runtime;

import dev.idem.quarkus.jta.JtaHandlerExecution;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import jakarta.transaction.Transaction;
import jakarta.transaction.TransactionManager;
import org.jboss.resteasy.reactive.server.core.CurrentRequestManager;
import org.jboss.resteasy.reactive.server.core.ResteasyReactiveRequestContext;

/**
 * Holds a covered request's JTA transaction ({@link JtaHandlerExecution}) on the thread that runs
 * its {@code @Idempotent} resource method, for the duration of the call: resumed before it,
 * suspended after it, whether it returns or throws, so what the method writes in the transaction
 * ({@code @Transactional} beans joining it, the application's datasource) commits with the stored
 * response, and no thread keeps a request's transaction after its method. Outside Narayana's
 * {@code @Transactional} interceptor (a lower priority), so that one finds the transaction and
 * joins it. A call in no such request passes through. Wired by the extension; not for
 * applications.
 */
@RequestTransaction
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 100)
public class RequestTransactionInterceptor {
    private final TransactionManager transactions;

    /**
     * Created by CDI.
     *
     * @param transactions the application's transaction manager
     */
    @Inject
    public RequestTransactionInterceptor(TransactionManager transactions) {
        this.transactions = transactions;
    }

    /**
     * Runs the method in the request's transaction, if it has one.
     *
     * @param invocation the call
     * @return the method's result
     * @throws Exception what the method threw, or the transaction manager's refusal
     */
    @AroundInvoke
    public Object inRequestTransaction(InvocationContext invocation) throws Exception {
        ResteasyReactiveRequestContext request = CurrentRequestManager.get();
        Object held = request == null ? null : request.getProperty(JtaHandlerExecution.TRANSACTION_PROPERTY);
        if (!(held instanceof Transaction transaction)) {
            return invocation.proceed();
        }
        Transaction current = transactions.getTransaction();
        if (current != null) {
            if (current.equals(transaction)) {
                // A nested @Idempotent call on the same thread: the transaction is already here.
                return invocation.proceed();
            }
            throw new IllegalStateException("the thread that runs " + invocation.getMethod() + " is in another"
                    + " transaction than its request's");
        }
        transactions.resume(transaction);
        request.setProperty(JtaHandlerExecution.JOINED_PROPERTY, transaction);
        try {
            return invocation.proceed();
        } finally {
            transactions.suspend();
        }
    }
}
