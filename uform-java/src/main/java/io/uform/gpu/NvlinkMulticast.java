package io.uform.gpu;

import java.util.Optional;
import java.util.function.Supplier;

import io.uform.gpu.DeviceFacts.Vendor;

/**
 * Whether a device reduces in the NVLink switch (NVLink SHARP multicast), as a mesh's
 * {@link io.uform.MultimemTier} needs to know: {@code cuDeviceGetAttribute} with
 * {@link CudaDriver#ATTRIBUTE_MULTICAST_SUPPORTED} (native-interfaces.md 7.1, step 2) for NVIDIA
 * devices, never for others.
 *
 * <p>Any failure answers "no", so the mesh falls back to peer reads: a driver too old to know the
 * attribute refuses it with {@code CUDA_ERROR_INVALID_VALUE}, and a device that cannot be asked can
 * still read its peers. The driver is opened on the first NVIDIA question only.
 */
public final class NvlinkMulticast {

	private static volatile NvlinkMulticast system;

	private final Supplier<Optional<CudaDriver>> loader;

	/** The loader's answer once asked; guarded by {@code this}. */
	private Optional<CudaDriver> driver;

	/**
	 * Asks through a given driver; tests pass a fake.
	 * @param loader opens the driver: empty when it is not installed
	 */
	NvlinkMulticast(Supplier<Optional<CudaDriver>> loader) {
		this.loader = loader;
	}

	/**
	 * Asks this machine's {@code libcuda.so.1}.
	 * @return the shared instance
	 */
	public static NvlinkMulticast system() {
		NvlinkMulticast probe = system;
		if (probe == null) {
			synchronized (NvlinkMulticast.class) {
				probe = system;
				if (probe == null) {
					probe = new NvlinkMulticast(SystemDriver.LOADER);
					system = probe;
				}
			}
		}
		return probe;
	}

	/**
	 * Whether a device reports NVLink multicast support.
	 * @param device the device
	 * @param cudaOrdinal its CUDA ordinal (after {@code CUDA_VISIBLE_DEVICES}); ignored for other vendors
	 * @return {@code true} only for an NVIDIA device whose driver says 1
	 */
	public boolean supported(DeviceFacts device, int cudaOrdinal) {
		if (device.vendor() != Vendor.NVIDIA) {
			return false;
		}
		try {
			CudaDriver cuda = driver();
			if (cuda == null) {
				return false;
			}
			cuda.init();
			return cuda.attribute(cuda.device(cudaOrdinal), CudaDriver.ATTRIBUTE_MULTICAST_SUPPORTED) == 1;
		}
		catch (RuntimeException | LinkageError ex) {
			return false;
		}
	}

	private synchronized CudaDriver driver() {
		if (this.driver == null) {
			this.driver = this.loader.get();
		}
		return this.driver.orElse(null);
	}

	/**
	 * Opens this machine's driver ({@link JnaCudaDriver#load()}). A class rather than a method
	 * reference: a mesh's bootstrap asks for {@link #system()} on the critical path of its join, where a
	 * lambda's call site, linked at first use, costs a cold JVM several times what a small class does.
	 */
	private static final class SystemDriver implements Supplier<Optional<CudaDriver>> {

		static final Supplier<Optional<CudaDriver>> LOADER = new SystemDriver();

		@Override
		public Optional<CudaDriver> get() {
			return JnaCudaDriver.load();
		}
	}
}
