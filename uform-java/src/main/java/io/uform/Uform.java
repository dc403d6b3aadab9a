package io.uform;

import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.uform.gpu.GpuDiscovery;
import io.uform.host.CpuClasses;
import io.uform.host.NearestNames;
import io.uform.host.NumaDomain;
import io.uform.host.NumaTopology;
import io.uform.host.ThreadPinner;

/**
 * Entry points that describe the machine: the GPUs this process can drive and the hardware
 * capabilities compiled into this build and available here.
 */
public final class Uform {

	/**
	 * The classes every executor's construction, first {@code defer} and {@code free} load, by name
	 * since several are private to their package or nested. None of their static initialisers starts
	 * a thread or binds a native call (the executor's cleaner is made with the first executor).
	 * {@code PreinitializeLoadsExecutorClassesTest} checks, in a fresh JVM, that a first executor made
	 * after {@link #preinitialize()} loads, verifies and initialises none of uform's classes, and that
	 * every name here names a class, so that the list cannot fall behind the code.
	 */
	static final String[] EXECUTOR_CLASSES = { "io.uform.UformException", "io.uform.UformException$Status",
			"io.uform.ExecutorForRamConfig", "io.uform.ConfigLists", "io.uform.ExecutorHooks",
			"io.uform.ExecutorHooks$Scope", "io.uform.DeferredCallDecorator", "io.uform.DeferredCallDecorator$Decoration",
			"io.uform.ForkDecorator", "io.uform.ForkDecorator$Context", "io.uform.DecoratedDeferredCall",
			"io.uform.DecoratedForks", "io.uform.host.WrappedCall",
			"io.uform.Executor", "io.uform.Executor$Kind", "io.uform.Executor$State", "io.uform.ExecutorResources",
			"io.uform.ExecutorFreeing", "io.uform.ExecutorDraining",
			"io.uform.ExecutorStatistics", "io.uform.ExecutorOnPoolConfig", "io.uform.Mood", "io.uform.ThreadTask",
			"io.uform.ProngTask", "io.uform.SliceTask", "io.uform.DeviceTask", "io.uform.UformFailures",
			"io.uform.failure.FailureFactory", "io.uform.failure.Failures", "io.uform.host.HostPlacement",
			"io.uform.host.HostPlacement$Request", "io.uform.TaskBodies", "io.uform.host.ForkBodies",
			"io.uform.host.ThreadPinner", "io.uform.host.InheritedAffinityPinner",
			"io.uform.host.InheritedAffinityPinner$OneNode", "io.uform.host.HostPool", "io.uform.host.HostWorker",
			"io.uform.host.ForkDescriptor", "io.uform.host.ForkWait",
			"io.uform.host.PaddedLong", "io.uform.host.CpuEscape", "io.uform.host.ForkFailure", "io.uform.host.DeferredCalls",
			"io.uform.host.DeferredCall", "io.uform.host.DeferredFuture", "io.uform.host.DeferredCalls$Outcome",
			"io.uform.host.DroppedCalls",
			"io.uform.host.DeferredCounts", "io.uform.host.DeferredSlots", "io.uform.host.DeferredExit",
			"io.uform.host.DeferredRefusals",
			"io.uform.host.DeferredCompletions", "io.uform.host.ExitHooks", "io.uform.gpu.EveryStep" };

	private Uform() {
	}

	/**
	 * Lists every GPU this process can drive, NVIDIA devices first, then AMD, so that a device's
	 * position is the ordinal {@link ExecutorForVramConfig#devices()} names it by. A machine without
	 * GPUs (or without drivers) lists none; a driver that is installed but failing lists none of its
	 * devices and says why in {@link GpuDiscovery#problems()}. Discovered once per process, see
	 * {@link GpuDiscovery}.
	 * @return the devices, possibly empty
	 */
	public static List<GpuDevice> gpuDevices() {
		return Gpus.devices(GpuDiscovery.system());
	}

	/**
	 * Reads a GPU now, for metrics: memory used and total, utilisation, power and temperature, each
	 * {@code null} where its vendor does not report it.
	 * @param ordinal the device's position in {@link #gpuDevices()}
	 * @return the readings
	 * @throws UformException {@code NO_DEVICE} when no device has that ordinal, or when its driver says
	 *         the device is lost (it fell off the bus, or was removed since discovery)
	 */
	public static GpuReadings gpuReadings(int ordinal) {
		return Gpus.readings(GpuDiscovery.system().readings(ordinal));
	}

	/**
	 * Does now, on the calling thread, the one-time work of the first executor that does not depend on
	 * its configuration: reading the CPU's flags, kept for the life of the process; loading the classes
	 * that read the NUMA topology (which each executor reads again, since the CPUs a process may use can
	 * change); loading and initialising the classes of an executor's host side (its pool of threads, its
	 * deferred calls: some 30 classes that a cold JVM reads, verifies and initialises, most of what a
	 * first executor costs the thread that makes it); and, on a machine with more than one NUMA node,
	 * binding the native calls for thread pinning (loading JNA and libc, the costliest part of a cold
	 * JVM's first use of uform). With one node no worker needs that
	 * call (it already runs on its domain's CPUs), and nothing binds it. The first {@link Executor#forRam} that
	 * follows skips that work. Call it from a background thread early in an application's start (the
	 * Spring Boot starter does, as Boot's own background preinitialization does for its classes);
	 * calling it is never needed, and calling it again, or from several threads at once, binds and
	 * reads once. Never throws: a failure is reported by the executor that meets it. GPU discovery is
	 * not part of it, since it depends on {@code uform.devices.simulated}, which may not be set yet.
	 */
	public static void preinitialize() {
		try {
			CpuClasses.system();
			// Workers call sched_setaffinity only on a machine with several NUMA nodes (see
			// ThreadPinner.forWorkers): bind it there, and spare one-node machines JNA.
			if (NumaTopology.system().machineNodes() > 1) {
				ThreadPinner.system();
			}
		}
		catch (RuntimeException ex) {
			// The executor that needs what failed here meets the failure again, and reports it.
		}
		loadExecutorClasses();
	}

	private static void loadExecutorClasses() {
		ClassLoader loader = Uform.class.getClassLoader();
		for (String name : EXECUTOR_CLASSES) {
			try {
				Class.forName(name, true, loader);
			}
			catch (ClassNotFoundException ex) {
				// Not thrown: PreinitializeLoadsExecutorClassesTest checks that every name resolves.
			}
			catch (LinkageError ex) {
				// The JVM does not run a failed static initialiser again: the first executor then meets a
				// NoClassDefFoundError that, before Java 21, does not say why. Say it here.
				System.getLogger("io.uform").log(System.Logger.Level.WARNING,
						"Preinitializing " + name + " failed; executors will fail to start", ex);
			}
		}
	}

	/**
	 * The hardware capabilities this build can drive, comma-separated, from the vocabulary that
	 * {@link Capabilities} documents (CPU classes, {@code numa}, {@code cuda}, {@code rocm}, GPU classes).
	 * @return capability tokens
	 */
	public static String capabilitiesCompiled() {
		return Capabilities.join(Capabilities.compiled());
	}

	/**
	 * The hardware capabilities this machine offers now, comma-separated; a subset of
	 * {@link #capabilitiesCompiled()}, in the same order.
	 * @return capability tokens
	 */
	public static String capabilitiesAvailable() {
		return Capabilities.join(Capabilities.available(CpuClasses.system().available(),
				NumaTopology.system().domains().size(), gpuDevices()));
	}

	/**
	 * The best CPU class this CPU offers: what an executor without {@code cpuClass} dispatches as.
	 * @return a CPU class, like {@code intel-icelake}
	 */
	public static String bestCpuClass() {
		return CpuClasses.system().best();
	}

	/**
	 * The memory domains (NUMA nodes) this process may use, each with the CPUs of it this process may
	 * run on: where an executor's {@code memoryDomains} place its threads.
	 * @return CPU ids by domain id, ascending; one domain where the machine reports none
	 */
	public static Map<Integer, List<Integer>> memoryDomains() {
		Map<Integer, List<Integer>> domains = new LinkedHashMap<>();
		for (NumaDomain domain : NumaTopology.system().domains()) {
			domains.put(domain.id(), Arrays.stream(domain.cpus()).boxed().toList());
		}
		return Collections.unmodifiableMap(domains);
	}

	/**
	 * Why an executor made here would refuse a CPU class, in the words of that failure (the nearest
	 * known classes, and the classes this CPU offers), or {@code null} where this CPU offers it: for a
	 * warning given before the executor is made.
	 * @param cpuClass a class name, as configured
	 * @return the reason, or {@code null}
	 */
	public static String cpuClassProblem(String cpuClass) {
		return CpuClasses.system().whyNot(cpuClass);
	}

	/**
	 * The names of a vocabulary nearest a mistyped one, by the rule uform's own "did you mean"
	 * messages use: Damerau-Levenshtein distance ignoring case, a name without its vendor one edit
	 * away, and only names close enough to be a typo.
	 * @param typed the name that matched none
	 * @param names the vocabulary, the names to prefer first
	 * @return the nearest names, in the order given; empty where none is close
	 */
	public static List<String> nearestNames(String typed, Collection<String> names) {
		return NearestNames.nearest(typed, names);
	}
}
