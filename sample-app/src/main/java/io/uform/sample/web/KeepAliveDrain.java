package io.uform.sample.web;

import java.io.IOException;
import java.time.Duration;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Lets kept-alive clients go before the web server stops. Boot's graceful shutdown pauses Tomcat's
 * connector and lets the requests in flight finish; a request that arrives meanwhile on a kept-alive
 * connection is never read, and the connection is closed under it when the server stops: the client
 * gets no answer and cannot tell whether its request ran (32 of 43 such requests at 32 clients).
 *
 * <p>So before the graceful shutdown begins (this lifecycle stops first: its phase is above the web
 * server's), shutdown is announced to the {@link #filter() filter}: from then on every new request is
 * answered 503 with {@code Retry-After} and {@code Connection: close}, and a request already in flight
 * finishes with {@code Connection: close}; each client thus hears once that this server is going and
 * opens its next connection elsewhere (or is refused, which it knows to retry). The stop waits until no
 * request has arrived for {@link #QUIET}, or for the drain period at most, then the graceful shutdown
 * goes on.
 * New connections are refused from the start of the drain (the server socket is closed, as the graceful
 * shutdown would do), so a client that was told to close cannot open one that the stop would drop.
 *
 * <p>Where threads meet: {@code draining} is volatile, set once by the context's closing thread and
 * read by request threads; {@code lastArrival} is volatile, written by request threads while draining
 * (last writer wins: any recent arrival keeps the drain going) and read by the closing thread.
 */
public final class KeepAliveDrain implements SmartLifecycle {

	/** Above the web server's graceful shutdown ({@code DEFAULT_PHASE - 1024}), so it stops before it. */
	static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 512;

	private static final Log logger = LogFactory.getLog(KeepAliveDrain.class);

	/** How long no request must arrive before the drain ends early: the open connections have been told. */
	static final Duration QUIET = Duration.ofMillis(200);

	private final Runnable stopAccepting;

	private final Duration period;

	private volatile boolean draining;

	/** When the last request arrived while draining ({@link System#nanoTime()}). */
	private volatile long lastArrival;

	private volatile boolean running;

	/**
	 * @param stopAccepting closes the connector's server socket, so new connections are refused
	 * @param period how long the stop waits for the open connections to be told, at most
	 */
	KeepAliveDrain(Runnable stopAccepting, Duration period) {
		this.stopAccepting = stopAccepting;
		this.period = period;
	}

	/**
	 * The filter that answers with {@code Connection: close} once shutdown has begun.
	 * @return a filter over every request
	 */
	OncePerRequestFilter filter() {
		return new OncePerRequestFilter() {
			@Override
			protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response,
					FilterChain chain) throws ServletException, IOException {
				if (KeepAliveDrain.this.draining) {
					KeepAliveDrain.this.lastArrival = System.nanoTime();
					response.setHeader(HttpHeaders.CONNECTION, "close");
					response.setHeader(HttpHeaders.RETRY_AFTER, "1");
					ProblemResponses.write(request, response, HttpStatus.SERVICE_UNAVAILABLE,
							"the service is shutting down: send this request again, on a new connection");
					return;
				}
				try {
					chain.doFilter(request, response);
				}
				finally {
					if (KeepAliveDrain.this.draining && !response.isCommitted()) {
						response.setHeader(HttpHeaders.CONNECTION, "close");
					}
				}
			}
		};
	}

	@Override
	public void start() {
		this.running = true;
	}

	@Override
	public void stop() {
		this.draining = true;
		// A client told to close would otherwise reconnect here at once, and that connection would be
		// the one dropped; refused, it knows its request never arrived.
		this.stopAccepting.run();
		long start = System.nanoTime();
		this.lastArrival = start;
		long deadline = start + this.period.toNanos();
		// Busy connections are told within moments; an idle one may stay silent for good, so the drain
		// ends once no request has come for a while (or at the period's end), not when all are closed.
		while (System.nanoTime() - this.lastArrival < QUIET.toNanos() && System.nanoTime() < deadline) {
			try {
				Thread.sleep(10);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				break;
			}
		}
		logger.info("Shutting down: new connections refused, new requests on open ones answered 503 with "
				+ "Connection: close; drained in " + (System.nanoTime() - start) / 1_000_000 + " ms");
		this.running = false;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	/**
	 * Not stopped when a context is paused (Spring's test context cache pauses contexts it does not use
	 * for a while): the drain closes the server socket, which a paused context's restart would not reopen.
	 * @return {@code false}, as Boot's graceful shutdown answers
	 */
	@Override
	public boolean isPauseable() {
		return false;
	}

	@Override
	public int getPhase() {
		return PHASE;
	}
}
