package io.uform.child;

import io.uform.gpu.SimulatedRuntime;

/**
 * Makes the runtime fail before any class of {@code io.uform} is used: what it throws must still be
 * the API's exception, which the failure hook loads by name. Prints the exception's class and
 * message.
 */
public final class RuntimeFailsFirst {

	private RuntimeFailsFirst() {
	}

	public static void main(String[] args) {
		try {
			new SimulatedRuntime(-1, 1);
			System.out.println("no failure");
		}
		catch (RuntimeException ex) {
			System.out.println(ex.getClass().getName() + ": " + ex.getMessage());
		}
	}
}
