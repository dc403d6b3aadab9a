package io.uform.spring.autoconfigure;

import io.uform.UformException;

/**
 * A config value uform refused that came from a user's bean rather than a {@code uform.*} property:
 * a customizer that changed it, or a config bean that replaces the properties. Boot has no report
 * for that; {@link UformFailureAnalyzer} prints this one's description and action.
 */
final class UformBeanValueException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final String action;

	/**
	 * Makes the failure.
	 * @param description what was refused and which bean set it
	 * @param action what to change in that bean
	 * @param cause uform's failure
	 */
	UformBeanValueException(String description, String action, UformException cause) {
		super(description, cause);
		this.action = action;
	}

	String getAction() {
		return this.action;
	}
}
