/**
 * GPU discovery: NVIDIA through the CUDA driver API and NVML ({@link io.uform.gpu.CudaDriver},
 * {@link io.uform.gpu.JnaCudaDriver}), AMD through the amdkfd topology in sysfs, combined and cached
 * by {@link io.uform.gpu.GpuDiscovery}; the class vocabulary in {@link io.uform.gpu.GpuClasses}.
 * See {@code docs/vram.md} and {@code docs/design/gpu-discovery.md}.
 *
 * <h2>Dependencies</h2>
 * They run one way: {@code io.uform} uses this package, and this package names no type of
 * {@code io.uform}. It describes devices with its own {@link io.uform.gpu.DeviceFacts} and
 * {@link io.uform.gpu.Readings}, from which the API makes its {@code GpuDevice} and
 * {@code GpuReadings} field for field where it calls in. It fails with what the API's
 * {@link io.uform.failure.FailureFactory} makes (read from {@link io.uform.failure.Failures}), so that
 * callers get the API's {@code UformException} as the runtime threw it.
 */
package io.uform.gpu;
