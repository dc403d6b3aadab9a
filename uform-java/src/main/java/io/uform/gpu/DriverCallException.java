package io.uform.gpu;

/**
 * A CUDA driver or NVML call that did not return success, with the driver's own name for the status
 * (like {@code CUDA_ERROR_NO_DEVICE} or {@code NVML_ERROR_NOT_SUPPORTED}) so that messages can quote it.
 * It stays inside {@code io.uform.gpu}: discovery turns it into a failure made by
 * {@link io.uform.failure.FailureFactory} or into an absent value.
 */
public class DriverCallException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/** Status used when the library or the symbol itself is missing, so no driver status exists. */
	public static final int NOT_LOADED = -1;

	/** The exported symbol that failed. */
	private final String call;

	/** The status it returned. */
	private final int code;

	/** The driver's name for that status. */
	private final String statusName;

	/**
	 * Makes the exception.
	 * @param call the exported symbol that failed, like {@code cuInit}
	 * @param code the status it returned, or {@link #NOT_LOADED}
	 * @param statusName the driver's name for the status
	 */
	public DriverCallException(String call, int code, String statusName) {
		super(call + " failed: " + statusName + (code == NOT_LOADED ? "" : " (" + code + ")"));
		this.call = call;
		this.code = code;
		this.statusName = statusName;
	}

	/**
	 * The symbol that failed.
	 * @return like {@code cuDeviceGetCount}
	 */
	public String call() {
		return this.call;
	}

	/**
	 * The status code the call returned.
	 * @return a {@code CUresult} or {@code nvmlReturn_t}, or {@link #NOT_LOADED}
	 */
	public int code() {
		return this.code;
	}

	/**
	 * The driver's name for the status.
	 * @return like {@code CUDA_ERROR_UNKNOWN}
	 */
	public String statusName() {
		return this.statusName;
	}
}
