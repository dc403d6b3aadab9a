package io.uform.gpu;

/**
 * Runs every step of a release even when one fails, then throws the first failure with the later ones
 * suppressed into it: a device's stream, modules, scratch blocks and context are all given back however
 * many of those calls the driver refuses. Not thread-safe: one releasing thread uses one instance.
 */
public final class EveryStep {

	private RuntimeException first;

	/**
	 * Runs a step, keeping its failure for {@link #throwFirst()}.
	 * @param step what to run
	 */
	public void run(Runnable step) {
		try {
			step.run();
		}
		catch (RuntimeException ex) {
			if (this.first == null) {
				this.first = ex;
			}
			else {
				this.first.addSuppressed(ex);
			}
		}
	}

	/** Throws the first failure of the steps run so far, the later ones suppressed in it; else returns. */
	public void throwFirst() {
		if (this.first != null) {
			throw this.first;
		}
	}
}
