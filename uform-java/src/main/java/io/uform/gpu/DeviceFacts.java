package io.uform.gpu;

import java.util.Objects;

/**
 * One GPU as discovery found it: what {@code io.uform.GpuDevice} shows users, field for field, which
 * {@code io.uform} makes from it (the runtime names no API type, so that the two packages do not
 * import each other).
 * @param vendor who made it
 * @param vendorOrdinal its index in the vendor's own numbering (CUDA, KFD), or -1 when unknown
 * @param gpuClass its uform class ({@code nvidia-hopper}), or {@code null} when unknown
 * @param computeUnits streaming multiprocessors (NVIDIA) or compute units (AMD)
 * @param memoryBytes device memory, bytes
 * @param name the vendor's name for it
 * @param uuid the vendor's UUID, or {@code null}
 * @param pciBusId its PCI address ({@code 0000:17:00.0}), or {@code null}
 */
public record DeviceFacts(Vendor vendor, int vendorOrdinal, String gpuClass, int computeUnits, long memoryBytes,
		String name, String uuid, String pciBusId) {

	/**
	 * Checks the fields every device has.
	 * @param vendor who made it
	 * @param vendorOrdinal its index in the vendor's own numbering
	 * @param gpuClass its uform class, or {@code null}
	 * @param computeUnits SMs or CUs
	 * @param memoryBytes device memory, bytes
	 * @param name the vendor's name for it
	 * @param uuid the vendor's UUID, or {@code null}
	 * @param pciBusId its PCI address, or {@code null}
	 */
	public DeviceFacts {
		Objects.requireNonNull(vendor, "vendor");
		Objects.requireNonNull(name, "name");
	}

	/** Who made a GPU: the constants of {@code io.uform.GpuVendor}, by name. */
	public enum Vendor {
		/** Not recognised. */
		UNKNOWN,
		/** NVIDIA, driven through CUDA. */
		NVIDIA,
		/** AMD, discovered through amdkfd. */
		AMD,
		/** Apple. */
		APPLE,
		/** Host memory standing in for a GPU (see {@link SimulatedRuntime}). */
		SIMULATED
	}
}
