package io.uform.spring.autoconfigure.models;

import java.util.Map;

/**
 * The configured models, as Actuator shows them: implemented by the bean that loads them, and looked
 * up by this type so that the endpoint, health and info need no ONNX Runtime type.
 */
public interface ModelReports {

	/**
	 * Every entry of {@code uform.models}, loaded or not yet.
	 * @return reports by model name, in the order the entries were written
	 */
	Map<String, ModelReport> reports();
}
