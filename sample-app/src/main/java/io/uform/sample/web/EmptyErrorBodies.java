package io.uform.sample.web;

import java.io.IOException;
import java.io.PrintWriter;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;

import org.springframework.http.HttpStatus;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Gives a body to an error answered without one: an actuator read operation that returns nothing (as
 * {@code /actuator/uform/{bogus}} does) is a 404 with an empty body, which tells a client nothing. The
 * error's status stays; a problem saying what was not found is its body. Answers with a body of their
 * own, and successes, pass unchanged.
 */
public final class EmptyErrorBodies extends OncePerRequestFilter {

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		Watched watched = new Watched(response);
		chain.doFilter(request, watched);
		if (!response.isCommitted() && !watched.bodyStarted && response.getStatus() >= 400
				&& !request.isAsyncStarted()) {
			HttpStatus status = HttpStatus.resolve(response.getStatus());
			if (status != null) {
				String detail = (status == HttpStatus.NOT_FOUND) ? "there is nothing at " + request.getRequestURI()
						+ ((request.getRequestURI().contains("/actuator/")) ? " (GET /actuator lists the endpoints; "
								+ "GET /actuator/uform the executors and parts it has)" : "")
						: status.getReasonPhrase();
				ProblemResponses.write(request, response, status, detail);
			}
		}
		if (watched.flushDeferred) {
			response.flushBuffer();
		}
	}

	/** The response, noting whether a body was started, and holding back a flush of a bare error. */
	private static final class Watched extends HttpServletResponseWrapper {

		private boolean bodyStarted;

		private boolean flushDeferred;

		Watched(HttpServletResponse response) {
			super(response);
		}

		@Override
		public ServletOutputStream getOutputStream() throws IOException {
			this.bodyStarted = true;
			return super.getOutputStream();
		}

		@Override
		public PrintWriter getWriter() throws IOException {
			this.bodyStarted = true;
			return super.getWriter();
		}

		@Override
		public void flushBuffer() throws IOException {
			// A flush commits the status: a bare error's must wait until the filter has given it a body.
			if (!this.bodyStarted && getStatus() >= 400) {
				this.flushDeferred = true;
				return;
			}
			super.flushBuffer();
		}
	}
}
