package io.uform.spring.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.unit.DataSize;

import io.uform.Executor;
import io.uform.ExecutorStatistics;
import io.uform.GpuDevice;
import io.uform.Mesh;
import io.uform.MeshDescription;
import io.uform.ScratchStatistics;
import io.uform.Uform;

/**
 * The one INFO line logged for each executor and mesh the starter makes, saying what was actually
 * built (the values uform derived, not only the ones configured), so that a property that bound to
 * nothing shows up as a default at startup instead of as a surprise under load.
 */
final class UformStartupLog {

	private static final Log logger = LogFactory.getLog(UformAutoConfiguration.class);

	private UformStartupLog() {
	}

	static Executor made(String beanName, Executor executor) {
		if (logger.isInfoEnabled()) {
			logger.info(describe(beanName, executor.statistics()));
		}
		return executor;
	}

	static void made(String beanName, Mesh mesh, long joinMillis, @Nullable Map<String, String> origins) {
		if (logger.isInfoEnabled()) {
			logger.info(describe(beanName, mesh.describe(), joinMillis) + fromWhere(origins));
		}
	}

	/** Where the mesh's values came from, as {@link UformMeshSources#origins} says: {@code "; values from ..."}. */
	static String fromWhere(@Nullable Map<String, String> origins) {
		if (origins == null) {
			return "";
		}
		StringBuilder line = new StringBuilder("; values from: ");
		String separator = "";
		for (Map.Entry<String, String> origin : origins.entrySet()) {
			line.append(separator).append(origin.getKey()).append(' ').append(origin.getValue());
			separator = ", ";
		}
		return line.toString();
	}

	static String describe(String beanName, ExecutorStatistics stats) {
		StringBuilder line = new StringBuilder("Made uform ").append(stats.kind())
			.append(" executor bean '")
			.append(beanName)
			.append("' (")
			.append(stats.name())
			.append("): ")
			.append(counted(stats.threads(), "thread"))
			.append(" on memory domains ")
			.append(stats.memoryDomains())
			.append(", cpu class ")
			.append(stats.cpuClass())
			.append(", ")
			.append(stats.pinning())
			.append(", deferred limit ")
			.append(stats.deferredLimit());
		if (!stats.devices().isEmpty()) {
			List<GpuDevice> all = Uform.gpuDevices();
			List<String> devices = new ArrayList<>();
			for (int i = 0; i < stats.devices().size(); i++) {
				int ordinal = stats.devices().get(i);
				GpuDevice device = all.get(ordinal);
				ScratchStatistics scratch = (i < stats.scratch().size()) ? stats.scratch().get(i) : null;
				// "NVIDIA H200", not "NVIDIA NVIDIA H200": the vendor only where the name does not say it.
				String vendor = device.vendor().name();
				String name = device.name().toUpperCase(java.util.Locale.ROOT).startsWith(vendor) ? device.name()
						: vendor + " " + device.name();
				devices.add(ordinal + " (" + name + ", "
						+ DataSize.ofBytes(device.memoryBytes()).toMegabytes() + " MB, scratch limit "
						+ ((scratch == null || scratch.limitBytes() == null) ? "none"
								: DataSize.ofBytes(scratch.limitBytes()).toMegabytes() + " MB")
						+ ")");
			}
			line.append((devices.size() == 1) ? ", device " : ", devices ").append(String.join(", ", devices));
		}
		return line.toString();
	}

	static String describe(String beanName, MeshDescription mesh, long joinMillis) {
		String job = (mesh.job() != null) ? "job '" + mesh.job() + "'" : "no job";
		return "Joined uform mesh bean '" + beanName + "' in " + joinMillis + " ms: " + job + ", index "
				+ mesh.hostDomainIndex() + " of " + mesh.hostDomainCount() + ", " + counted(mesh.gpusPerHost(), "GPU")
				+ " here, " + counted(mesh.multimemDomains(), "multimem domain") + " of "
				+ counted(mesh.gpusPerMultimemDomain(), "GPU") + " (" + mesh.multimemTier() + "), hosts "
				+ mesh.peerHosts();
	}

	/**
	 * A count with its noun, singular for one: {@code 1 thread}, {@code 8 threads}.
	 * @param count how many
	 * @param noun the noun in the singular; the plural adds an {@code s}
	 * @return the count and the noun
	 */
	static String counted(long count, String noun) {
		// Appends rather than +: each new shape of string concatenation is a call site the JVM links on
		// the main thread at startup, where this runs for every executor made.
		StringBuilder text = new StringBuilder().append(count).append(' ').append(noun);
		return ((count == 1) ? text : text.append('s')).toString();
	}
}
