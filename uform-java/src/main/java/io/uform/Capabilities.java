package io.uform;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

import io.uform.gpu.GpuClasses;
import io.uform.host.CpuClasses;

/**
 * uform's one vocabulary of capability tokens, behind {@link Uform#capabilitiesCompiled()} and
 * {@link Uform#capabilitiesAvailable()}. In this order:
 * <ol>
 * <li>CPU classes ({@code serial}, {@code intel-haswell}, …, {@code arm-sve2}): compiled are all that
 * {@link CpuClasses#known()} lists; available are those this CPU's flags allow.</li>
 * <li>{@code numa}: placement across NUMA domains. Available when this process may use CPUs of more
 * than one NUMA domain; a one-domain machine offers nothing to place across.</li>
 * <li>{@code cuda}: NVIDIA GPUs through {@code libcuda.so.1}. Available when at least one NVIDIA
 * device is visible to this process (an installed driver with no visible device offers nothing).</li>
 * <li>{@code rocm}: AMD GPUs, found through the amdkfd sysfs topology (this build discovers and
 * reads them; it has no HIP binding to run work on them yet). Available when at least one AMD
 * device is visible.</li>
 * <li>GPU classes ({@code nvidia-kepler}, …, {@code nvidia-blackwell}, {@code amd-gcn5}, …,
 * {@code amd-rdna4}): compiled are all that {@link GpuClasses#known()} lists; available are the
 * classes of the visible devices.</li>
 * </ol>
 * Simulated devices ({@link GpuVendor#SIMULATED}, host memory) add no token: they offer neither
 * {@code cuda} nor {@code rocm}, and their class {@code simulated} is outside the vocabulary, so a
 * program that checks capabilities never mistakes them for a GPU.
 *
 * <p>Available tokens are always a subset of compiled ones and listed in the same order.
 */
public final class Capabilities {

	/** Token for NUMA placement. */
	public static final String NUMA = "numa";

	/** Token for NVIDIA GPUs through CUDA. */
	public static final String CUDA = "cuda";

	/** Token for AMD GPUs through ROCm's kernel driver. */
	public static final String ROCM = "rocm";

	private Capabilities() {
	}

	/**
	 * Every token this build knows and can drive.
	 * @return the tokens, in vocabulary order
	 */
	public static List<String> compiled() {
		List<String> tokens = new ArrayList<>(CpuClasses.known());
		tokens.addAll(List.of(NUMA, CUDA, ROCM));
		tokens.addAll(GpuClasses.known());
		return List.copyOf(tokens);
	}

	/**
	 * The tokens a machine offers.
	 * @param cpuClasses the CPU classes it offers
	 * @param numaDomains how many NUMA domains this process may use
	 * @param gpus the GPUs this process sees
	 * @return the tokens, in vocabulary order, each one also in {@link #compiled()}
	 */
	public static List<String> available(Collection<String> cpuClasses, int numaDomains, List<GpuDevice> gpus) {
		Set<String> offered = new TreeSet<>(cpuClasses);
		if (numaDomains > 1) {
			offered.add(NUMA);
		}
		for (GpuDevice gpu : gpus) {
			if (gpu.vendor() == GpuVendor.NVIDIA) {
				offered.add(CUDA);
			}
			else if (gpu.vendor() == GpuVendor.AMD) {
				offered.add(ROCM);
			}
			// SIMULATED offers no runtime token; its class is dropped below as outside the vocabulary.
			if (gpu.gpuClass() != null) {
				offered.add(gpu.gpuClass());
			}
		}
		// Walking the compiled list keeps the order and drops anything outside the vocabulary.
		return compiled().stream().filter(offered::contains).toList();
	}

	/**
	 * Joins tokens the way the C ABI spells them.
	 * @param tokens capability tokens
	 * @return comma-separated, no spaces
	 */
	public static String join(List<String> tokens) {
		return String.join(",", Objects.requireNonNull(tokens, "tokens"));
	}
}
