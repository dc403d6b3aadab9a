package io.uform;

/**
 * What a mesh reports about itself: its shape and this process's place in it. Returned by
 * {@link Mesh#describe()}; mirrors {@code uform_mesh_description_t}.
 *
 * @param hostDomainIndex this process's index in the run
 * @param hostDomainCount processes in the run
 * @param gpusPerHost GPUs this process brings (the devices of its VRAM executor)
 * @param gpusPerMultimemDomain GPUs one NVLink multicast domain spans
 * @param multimemTier how its NVLink domains reduce
 * @param job the run's name
 */
public record MeshDescription(int hostDomainIndex, int hostDomainCount, int gpusPerHost,
		int gpusPerMultimemDomain, MultimemTier multimemTier, String job) {
}
