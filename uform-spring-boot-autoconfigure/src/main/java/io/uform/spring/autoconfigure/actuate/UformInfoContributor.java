package io.uform.spring.autoconfigure.actuate;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.actuate.info.InfoContributor;

import io.uform.Uform;

/**
 * An {@link InfoContributor} that adds a {@code uform} entry to the info endpoint: the uform-java
 * version, the best CPU class this CPU offers (what an executor without {@code cpu-class} dispatches
 * as; named {@code bestCpuClass} so that it is not read as an executor's class, which the
 * {@code uform} endpoint shows), and the capability tokens compiled into uform and available on this
 * machine, and the names of the models of {@code uform.models} where there are any:
 *
 * <pre class="code">
 * "uform": {
 *   "version": "0.1.0-SNAPSHOT",
 *   "bestCpuClass": "intel-icelake",
 *   "capabilities": { "compiled": [ ... ], "available": [ ... ] }
 * }
 * </pre>
 */
public class UformInfoContributor implements InfoContributor {

	/** The key of the entry this contributor adds. */
	public static final String KEY = "uform";

	private final Supplier<String> cpuClass;

	private final Supplier<Collection<String>> models;

	/**
	 * Makes the contributor for the machine this JVM runs on, naming the configured models.
	 * @param models gives the names of the models of {@code uform.models}
	 */
	public UformInfoContributor(Supplier<Collection<String>> models) {
		this(Uform::bestCpuClass, models);
	}

	/**
	 * Makes the contributor with a given source for the CPU class, for tests.
	 * @param cpuClass gives the best CPU class
	 * @param models gives the names of the models
	 */
	UformInfoContributor(Supplier<String> cpuClass, Supplier<Collection<String>> models) {
		this.cpuClass = cpuClass;
		this.models = models;
	}

	@Override
	public void contribute(Info.Builder builder) {
		Map<String, Object> capabilities = new LinkedHashMap<>();
		capabilities.put("compiled", UformFacts.compiled());
		capabilities.put("available", UformFacts.available());
		Map<String, Object> uform = new LinkedHashMap<>();
		uform.put("version", UformFacts.version());
		uform.put("bestCpuClass", this.cpuClass.get());
		uform.put("capabilities", capabilities);
		Collection<String> models = this.models.get();
		if (!models.isEmpty()) {
			uform.put("models", List.copyOf(models));
		}
		builder.withDetail(KEY, uform);
	}
}
