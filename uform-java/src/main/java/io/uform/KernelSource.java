package io.uform;

/**
 * A kernel to load on a device: the PTX module's text and the kernel's name in it. Load it with
 * {@link DeviceLane#kernel(KernelSource)}; the module is loaded once per device.
 *
 * @param ptx the module, as {@code nvcc --ptx} writes it
 * @param entry the kernel's name ({@code extern "C"}, so unmangled)
 */
public record KernelSource(String ptx, String entry) {

	/** Checks both are given. */
	public KernelSource {
		UformException.requireArgument(ptx, "ptx", "pass the PTX module's text");
		UformException.requireArgument(entry, "entry", "pass the kernel's name, as declared with .entry in the PTX");
	}
}
