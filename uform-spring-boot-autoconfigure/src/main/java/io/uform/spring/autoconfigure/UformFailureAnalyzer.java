package io.uform.spring.autoconfigure;

import java.util.Map;

import org.springframework.beans.factory.BeanCreationException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

import io.uform.UformException;

/**
 * Turns a {@link UformException} that stopped the application from starting into a report that
 * names the {@code uform.*} property, its value and the fix, instead of a stack trace naming a Java
 * field: {@code threads = 0} in {@code ExecutorForRamConfig} is {@code uform.ram.threads} to the
 * person reading it.
 */
class UformFailureAnalyzer extends AbstractFailureAnalyzer<UformException> {

	/**
	 * Which properties feed each auto-configured executor bean, by bean name. Configs are validated
	 * when the executor is made, so only executor beans fail on a property's value.
	 */
	private static final Map<String, String> PREFIX_BY_BEAN = Map.of(UformAutoConfiguration.RAM_EXECUTOR_BEAN_NAME,
			"uform.ram", UformAutoConfiguration.VRAM_EXECUTOR_BEAN_NAME, "uform.vram");

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, UformException cause) {
		String bean = failedBean(rootFailure);
		String prefix = (bean != null) ? PREFIX_BY_BEAN.get(bean) : null;
		String where = (bean != null) ? "The uform bean '" + bean + "'" : "A uform executor";
		if (cause.field() != null && prefix != null) {
			String property = prefix + "." + kebab(cause.field());
			// The description says what is wrong, the action what to do: uform's message holds both,
			// so it is split rather than repeated.
			return new FailureAnalysis(where + " could not be made: " + property + " = " + cause.value() + " is invalid.",
					"Update " + property + " in your configuration: " + cause.fix() + ".", cause);
		}
		return new FailureAnalysis(where + " could not be made: " + cause.getMessage() + " [" + cause.status() + "]",
				action(cause, prefix), cause);
	}

	private static String action(UformException cause, String prefix) {
		String properties = (prefix != null) ? prefix + ".*" : "the uform.* properties";
		return switch (cause.status()) {
			case NO_DEVICE -> "Check that this machine's GPUs are visible to the process, or run without GPU executors.";
			case UNSUPPORTED -> "Remove the configuration that asks for this feature from " + properties + ".";
			default -> "Check " + properties + " against the message above.";
		};
	}

	/** The innermost bean whose creation failed: the one the exception came from. */
	private static String failedBean(Throwable failure) {
		String bean = null;
		for (Throwable t = failure; t != null; t = t.getCause()) {
			if (t instanceof BeanCreationException creation && creation.getBeanName() != null) {
				bean = creation.getBeanName();
			}
		}
		return bean;
	}

	/** {@code memoryDomains} to {@code memory-domains}, as Boot spells properties. */
	static String kebab(String field) {
		StringBuilder out = new StringBuilder();
		for (char c : field.toCharArray()) {
			if (Character.isUpperCase(c)) {
				out.append('-').append(Character.toLowerCase(c));
			}
			else {
				out.append(c);
			}
		}
		return out.toString();
	}
}
