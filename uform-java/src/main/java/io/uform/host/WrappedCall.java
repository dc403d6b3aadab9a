package io.uform.host;

import java.util.concurrent.Callable;

/**
 * A deferred call that runs another inside something of its own (an executor's hooks: a restored
 * context, an observation's scope), so that reports about a running call (a free that ran out of
 * time) name the call the application submitted rather than the wrapper.
 */
public interface WrappedCall {

	/**
	 * The call this one runs, as the application gave it: a {@link Callable}, or a {@link Runnable} run
	 * as one; itself possibly a {@code WrappedCall}, unwrapped in turn.
	 * @return the submitted call
	 */
	Object wrapped();
}
