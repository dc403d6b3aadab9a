/**
 * GPU discovery: NVIDIA through the CUDA driver API and NVML ({@link io.uform.gpu.CudaDriver},
 * {@link io.uform.gpu.JnaCudaDriver}), AMD through the amdkfd topology in sysfs, combined and cached
 * by {@link io.uform.gpu.GpuDiscovery}; the class vocabulary in {@link io.uform.gpu.GpuClasses}.
 * See {@code docs/gpus.md}.
 */
package io.uform.gpu;
