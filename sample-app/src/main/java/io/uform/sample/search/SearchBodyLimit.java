package io.uform.sample.search;

import java.io.IOException;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpStatus;
import org.springframework.web.filter.OncePerRequestFilter;

import io.uform.sample.web.ProblemResponses;

/**
 * Caps the body of a {@code POST} at what its request can take, since the JSON is read whole before it
 * can be checked: a body of hundreds of megabytes would otherwise fill the heap and end in a 500. A
 * declared {@code Content-Length} over the cap is answered 413 at once; a body without one (chunked)
 * stops being read at the cap, which the JSON reader reports as a 400.
 *
 * <p>Where threads meet: an embedding route's cap comes from its models' {@code max-texts}, which exist
 * only once the context has made the model beans, after this filter: it is worked out on the first
 * request, by whichever request thread comes first, and kept in a volatile field. Two first requests
 * may both work it out; they get the same value.
 */
class SearchBodyLimit extends OncePerRequestFilter {

	/** Room per number: a float in JSON, with its sign, exponent, separator and some spaces. */
	static final int BYTES_PER_NUMBER = 64;

	/** Room per character of text: the longest JSON escape of one (a backslash, u and four hex digits). */
	static final int BYTES_PER_CHAR = 6;

	/** Room for the rest: the braces, {@code k}, {@code engine}, whitespace. */
	static final int OTHER_BYTES = 4096;

	private final LongSupplier cap;

	private final String takes;

	/** The cap, once worked out; 0 until then. */
	private volatile long maxBytes;

	/**
	 * @param cap works out the cap, once
	 * @param takes what the request takes at most, for the 413's detail
	 */
	SearchBodyLimit(LongSupplier cap, String takes) {
		this.cap = cap;
		this.takes = takes;
	}

	/**
	 * The cap of {@code POST /search}: a vector of the synthetic corpus's dimension, or a text query.
	 * @param dimensions the vectors' dimension, 0 without the synthetic corpus
	 * @return the filter
	 */
	static SearchBodyLimit forSearch(int dimensions) {
		long vector = (long) dimensions * BYTES_PER_NUMBER + OTHER_BYTES;
		long text = (long) TextChecks.MAX_CHARS * BYTES_PER_CHAR + OTHER_BYTES;
		long max = Math.max(vector, text);
		return new SearchBodyLimit(() -> max, "a search takes at most %d (a query of "
				+ TextChecks.MAX_CHARS + " characters" + ((dimensions > 0)
						? ", or sample.vectors.dimensions numbers" : "") + ", and k)");
	}

	/**
	 * The cap of {@code POST /embed}.
	 * @param maxTexts texts a call takes at most, asked on the first request
	 * @param which which {@code max-texts} that is, for the 413's detail
	 * @return the filter
	 */
	static SearchBodyLimit forEmbed(IntSupplier maxTexts, String which) {
		return new SearchBodyLimit(() -> (long) maxTexts.getAsInt() * (TextChecks.MAX_CHARS * BYTES_PER_CHAR + 8)
				+ OTHER_BYTES, "an embedding call takes at most %d (" + which + " texts of " + TextChecks.MAX_CHARS
						+ " characters)");
	}

	long maxBytes() {
		long max = this.maxBytes;
		if (max == 0) {
			max = this.cap.getAsLong();
			this.maxBytes = max;
		}
		return max;
	}

	@Override
	protected boolean shouldNotFilter(HttpServletRequest request) {
		// The path is the registration's URL pattern's to match: it sees the path as the servlet container
		// maps it (after a context path, a ;parameter or a %-escape), as the controller does.
		return !"POST".equals(request.getMethod());
	}

	@Override
	protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
			throws ServletException, IOException {
		long declared = request.getContentLengthLong();
		long maxBytes = maxBytes();
		if (declared > maxBytes) {
			ProblemResponses.write(request, response, HttpStatus.CONTENT_TOO_LARGE,
					"the body has " + declared + " bytes; " + this.takes.formatted(maxBytes));
			return;
		}
		chain.doFilter(new Capped(request, maxBytes), response);
	}

	/** The request, its body readable up to the cap. */
	private static final class Capped extends HttpServletRequestWrapper {

		private final long maxBytes;

		Capped(HttpServletRequest request, long maxBytes) {
			super(request);
			this.maxBytes = maxBytes;
		}

		@Override
		public ServletInputStream getInputStream() throws IOException {
			ServletInputStream body = super.getInputStream();
			long cap = this.maxBytes;
			return new ServletInputStream() {

				private long read;

				@Override
				public int read() throws IOException {
					int next = body.read();
					if (next >= 0) {
						count(1);
					}
					return next;
				}

				@Override
				public int read(byte[] buffer, int offset, int length) throws IOException {
					int n = body.read(buffer, offset, length);
					if (n > 0) {
						count(n);
					}
					return n;
				}

				private void count(int n) throws IOException {
					this.read += n;
					if (this.read > cap) {
						throw new IOException("the body is longer than " + cap + " bytes, more than this request takes");
					}
				}

				@Override
				public boolean isFinished() {
					return body.isFinished();
				}

				@Override
				public boolean isReady() {
					return body.isReady();
				}

				@Override
				public void setReadListener(ReadListener listener) {
					body.setReadListener(listener);
				}
			};
		}
	}
}
