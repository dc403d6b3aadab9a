package io.uform;

import java.util.List;
import java.util.Objects;

/**
 * What a mesh reports about itself: its shape and this process's place in it. Returned by
 * {@link Mesh#describe()}; mirrors {@code uform_mesh_description_t}, plus the devices and peer hosts
 * that Java callers (health checks, the actuator endpoint, logs) want to show.
 *
 * <h2>Multimem domains</h2>
 * The mesh's GPUs are numbered in process order (process 0's devices first, each process's in its
 * executor's order), and every {@code gpusPerMultimemDomain} consecutive GPUs form one NVLink
 * multicast domain; the last one holds what is left when the count does not divide evenly, and one
 * domain holds every GPU when {@code gpusPerMultimemDomain} is larger than the mesh.
 *
 * @param hostDomainIndex this process's index in the run, from 0
 * @param hostDomainCount processes in the run; 1 for a run with no peers
 * @param gpusPerHost GPUs this process brings (the devices of its VRAM executor)
 * @param gpusPerMultimemDomain GPUs one NVLink multicast domain spans (given, or derived from this
 *        host's GPU count; every process agrees on it)
 * @param multimemDomains how many multicast domains the mesh's GPUs form
 * @param multimemTier how the domains holding this process's GPUs reduce: {@link MultimemTier#SWITCH_REDUCED}
 *        where every GPU of those domains reports NVLink multicast support, {@link MultimemTier#PEER_READ}
 *        otherwise (always on simulated and AMD devices)
 * @param job the run's name; {@code null} for a run with no peers that was given none
 * @param devices this process's GPUs, as {@link Executor#devices()} lists them
 * @param peerHosts every process's host name, by index (this process's own among them)
 */
public record MeshDescription(int hostDomainIndex, int hostDomainCount, int gpusPerHost, int gpusPerMultimemDomain,
		int multimemDomains, MultimemTier multimemTier, String job, List<GpuDevice> devices, List<String> peerHosts) {

	/** Checks the fields every description has and keeps the lists unmodifiable. */
	public MeshDescription {
		Objects.requireNonNull(multimemTier, "multimemTier");
		devices = List.copyOf(devices);
		peerHosts = List.copyOf(peerHosts);
	}
}
