package io.uform.bench.startup;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The application's one endpoint, so that WebMVC maps a handler as a real service does.
 */
@RestController
class HelloController {

	@GetMapping("/")
	String hello() {
		return "hello";
	}
}
