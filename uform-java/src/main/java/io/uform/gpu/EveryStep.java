package io.uform.gpu;

/**
 * Runs every step of a release even when one fails, then throws the first failure with the later ones
 * suppressed into it: a device's stream, modules, scratch blocks and context are all given back however
 * many of those calls the driver refuses. {@link Error}s count as failures too (JNA's
 * {@code Invalid memory access}, an {@link OutOfMemoryError} while a message is built): a release that
 * stopped at one would leak every later device for good, since nothing retries a release. Not
 * thread-safe: one releasing thread uses one instance.
 */
public final class EveryStep {

	private Throwable first;

	/**
	 * Runs a step, keeping its failure for {@link #throwFirst()}.
	 * @param step what to run
	 */
	public void run(Runnable step) {
		try {
			step.run();
		}
		catch (Throwable ex) {
			if (this.first == null) {
				this.first = ex;
			}
			else if (ex != this.first) {
				this.first.addSuppressed(ex);
			}
		}
	}

	/**
	 * Throws the first failure of the steps run so far, the later ones suppressed in it; else returns.
	 * A {@link RuntimeException} or {@link Error} is thrown as it is.
	 */
	public void throwFirst() {
		if (this.first instanceof RuntimeException ex) {
			throw ex;
		}
		if (this.first instanceof Error error) {
			throw error;
		}
		if (this.first != null) {
			// A checked exception thrown sneakily through a Runnable: kept, not lost.
			throw new IllegalStateException(this.first);
		}
	}
}
