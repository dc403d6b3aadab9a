/**
 * uform's executors API: {@code io.uform} is what applications use (executors for RAM and VRAM,
 * GPU discovery, the mesh), and {@code io.uform.cli} holds the {@code uform-info} command. The
 * runtime behind them ({@code io.uform.host}: the fork-join host pool and thread pinning,
 * {@code io.uform.gpu}: CUDA, NVML and the simulated devices, {@code io.uform.mesh}: the file
 * rendezvous) is not exported, so that no application compiles against it by accident; on the class
 * path, where Spring Boot applications run, the same jar works unchanged.
 *
 * <p>Dependencies between the packages run one way: {@code io.uform} uses the runtime, and
 * {@code io.uform.gpu} and {@code io.uform.mesh} name no {@code io.uform} type (they fail through
 * {@code io.uform.failure.FailureFactory}, which the API implements with the {@code UformException} its
 * callers get), so that the API and those packages do not import each other.
 *
 * <p>No package is exported to one module alone: what uform's Spring Boot starter reads of the
 * machine (simulated GPUs, the best CPU class, the did-you-mean rule) is {@code io.uform}'s, as it is
 * any other application's. JNA binds native code through {@code NativeLibrary} functions and direct
 * mapping, which reflect on nothing of this module: no package is opened.
 */
module io.uform {
	requires com.sun.jna;

	exports io.uform;
	exports io.uform.cli;
}
