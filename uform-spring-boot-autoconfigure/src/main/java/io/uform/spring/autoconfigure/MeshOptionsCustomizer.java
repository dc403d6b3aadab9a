package io.uform.spring.autoconfigure;

import io.uform.MeshOptions;

/**
 * Adjusts the {@link MeshOptions} made from {@code uform.mesh.*} before the mesh is joined. Customizer
 * beans are applied in {@link org.springframework.core.annotation.Order} order; each gets the previous
 * one's result (options are a record, so a customizer returns a new one).
 */
@FunctionalInterface
public interface MeshOptionsCustomizer {

	/**
	 * Adjusts the options.
	 * @param options the options so far
	 * @return the options to use, for example with a job name derived from the deployment
	 */
	MeshOptions customize(MeshOptions options);
}
