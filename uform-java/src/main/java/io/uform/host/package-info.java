/**
 * The host runtime under a RAM executor (and the host threads of a VRAM executor): the machine as
 * the JVM does not describe it, and the threads that run work on it. {@code io.uform} is its API;
 * its types are public so that the API can use them across packages, not for applications.
 *
 * <h2>The machine</h2>
 * {@link io.uform.host.NumaTopology} reads NUMA nodes and the CPUs this process may use (sysfs, the
 * affinity mask, {@link io.uform.host.CgroupCpuQuota}'s cgroup quota); {@link io.uform.host.CpuClasses}
 * names the CPU's instruction-set class from its flags; {@link io.uform.host.HostPlacement} resolves a
 * config's threads, domains and class against both. The readers take a root directory, so that
 * tests read fixture machines.
 *
 * <h2>The threads</h2>
 * {@link io.uform.host.HostPool} is the fork-join engine: worker threads plus the thread that calls a
 * fork, pinned by a {@link io.uform.host.ThreadPinner}, with no lock or allocation between caller and
 * workers. {@link io.uform.host.DeferredCalls} runs an executor's deferred calls one at a time on a
 * runner thread, behind a bounded admission gate. {@link io.uform.host.ExitHooks} registers the
 * shutdown hooks that complete the deferred calls still queued at exit and leave the meshes still
 * joined. Where threads meet, the class's opening comment has the table of shared fields: who writes
 * each, who reads it, and why that is safe.
 *
 * <h2>Dependencies</h2>
 * It names no type of {@code io.uform}: the API hands it the tasks' bodies
 * ({@link io.uform.host.ForkBodies}) and the {@link io.uform.failure.FailureFactory} it makes its
 * exceptions with, so that callers get the API's exception, written here.
 */
package io.uform.host;
