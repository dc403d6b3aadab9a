package io.uform.spring.autoconfigure;

import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.env.Environment;

import io.uform.UformException;

/**
 * Reports the uform failures Boot has no analyzer for. A bad {@code uform.*} value is not among them:
 * {@link UformProperties} refuses what it can while binding, and the auto-configuration turns what
 * uform refuses into Boot's {@code InvalidConfigurationPropertyValueException}, so Boot's own
 * analyzers report the property, its value, where it was set and why. What is left: a value a
 * customizer or the user's config bean set ({@link UformBeanValueException}, naming that bean), a uform
 * call the user's own bean made while it was created, and failures not about one value (no GPU, out
 * of memory, a peer that did not join), whose action says what to check.
 *
 * <p>Boot makes failure analyzers with the failed context's {@link Environment}, {@code null} when the
 * failure came before there was one.
 */
class UformFailureAnalyzer extends AbstractFailureAnalyzer<UformException> {

	/** The properties each uform bean is made from, by the bean's name. */
	private static final Map<String, String> PROPERTIES = Map.of(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME,
			"uform.ram.*", UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME, "uform.vram.*",
			UformAutoConfiguration.MESH_BEAN_NAME, "uform.mesh.*");

	private final @Nullable Environment environment;

	UformFailureAnalyzer(@Nullable Environment environment) {
		this.environment = environment;
	}

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, UformException cause) {
		UformBeanValueException fromBean = findCause(rootFailure, UformBeanValueException.class);
		if (fromBean != null) {
			return new FailureAnalysis(fromBean.getMessage(), fromBean.getAction(), cause);
		}
		String bean = failedBean(rootFailure);
		if (bean != null && (cause.field() != null || !PROPERTIES.containsKey(bean))) {
			// The user's own code called uform while its bean was made (a fork in a constructor, say), and
			// uform refused the call: the uform beans turn a refused field into a property or bean report.
			String what = (cause.field() != null)
					? cause.field() + " = " + ConfiguredProperties.shown(cause.value()) + " is invalid"
					: cause.getMessage() + " [" + cause.status() + "]";
			String action = (cause.field() != null) ? "Fix that call in bean '" + bean + "': " + cause.fix() + "."
					: "Fix that call in bean '" + bean + "', or what it depends on. " + action(cause, null);
			return new FailureAnalysis("Bean '" + bean + "' could not be made: a uform call it made while it was "
					+ "created was refused: " + what + ".", action, cause);
		}
		String where = (bean != null) ? "The uform bean '" + bean + "'" : "A uform executor";
		return new FailureAnalysis(where + " could not be made: " + askedFor(bean, cause) + cause.getMessage() + " ["
				+ cause.status() + "]", action(cause, bean), cause);
	}

	/**
	 * For a VRAM executor that found no GPU, the property that asked for one whatever the machine
	 * ({@code uform.vram.enabled = true}), with where it was set, so that the report blames what the
	 * user wrote; otherwise nothing.
	 */
	private String askedFor(@Nullable String bean, UformException cause) {
		if (!UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME.equals(bean)
				|| cause.status() != UformException.Status.NO_DEVICE || this.environment == null) {
			return "";
		}
		OnVramEnabledCondition.Setting enabled = OnVramEnabledCondition.Setting.of(this.environment);
		if (enabled.value() != UformProperties.VramEnabled.TRUE || enabled.property() == null) {
			return "";
		}
		return "uform.vram.enabled = " + ConfiguredProperties.shown(String.valueOf(enabled.property().getValue()))
				+ ConfiguredProperties.setIn(enabled.property()) + " asks for it on every machine, and uform found no "
				+ "device for it: ";
	}

	private static String action(UformException cause, @Nullable String bean) {
		String properties = (bean != null) ? PROPERTIES.getOrDefault(bean, "the uform.* properties")
				: "the uform.* properties";
		if (cause.status() == UformException.Status.NO_DEVICE && UformAutoConfiguration.MESH_BEAN_NAME.equals(bean)) {
			// The mesh needs the VRAM executor; the description says what kept it from being made.
			return "Make the VRAM executor as the description says, or, to start without a mesh, remove "
					+ "uform.mesh.host-domain-count.";
		}
		return switch (cause.status()) {
			case NO_DEVICE -> "Check that this machine's GPUs are visible to the process (drivers, container device "
					+ "mounts, CUDA_VISIBLE_DEVICES); to start without the VRAM executor where there is none, set "
					+ "uform.vram.enabled=auto; for development without a GPU, set uform.devices.simulated=1.";
			case UNSUPPORTED -> "Remove the configuration that asks for this feature from " + properties + ".";
			case OUT_OF_MEMORY -> "Where scratch ran out, raise uform.vram.scratch-limit (unset, scratch may grow "
					+ "until the device is full) or ask for less; where the device or the host ran out, free memory "
					+ "or use a larger device.";
			case TIMEOUT -> "Check that every process of the run started and sees the same " + properties
					+ " values, or raise the timeout; the message above names what was missing.";
			default -> "Check " + properties + " against the message above.";
		};
	}

	/** The innermost bean whose creation failed: the one the exception came from. */
	private static @Nullable String failedBean(Throwable failure) {
		String bean = null;
		for (Throwable t = failure; t != null; t = t.getCause()) {
			if (t instanceof BeanCreationException creation && creation.getBeanName() != null) {
				bean = creation.getBeanName();
			}
		}
		return bean;
	}
}
