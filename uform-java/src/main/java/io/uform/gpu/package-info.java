/**
 * GPU discovery: NVIDIA through the CUDA driver API and NVML ({@link io.uform.gpu.CudaDriver},
 * {@link io.uform.gpu.JnaCudaDriver}), AMD through the amdkfd topology in sysfs, combined and cached
 * by {@link io.uform.gpu.GpuDiscovery}; the class vocabulary in {@link io.uform.gpu.GpuClasses}.
 * See {@code docs/vram.md} and {@code docs/design/gpu-discovery.md}.
 *
 * <h2>Dependencies</h2>
 * They run one way: {@code io.uform} uses this package, and this package names no type of
 * {@code io.uform}. It describes devices with its own {@link io.uform.gpu.DeviceFacts} and
 * {@link io.uform.gpu.Readings}, and fails with {@link io.uform.failure.RuntimeFailure}; the API makes
 * its {@code GpuDevice}, {@code GpuReadings} and {@code UformException} from them where it calls in,
 * field for field and with the same status and message.
 */
package io.uform.gpu;
