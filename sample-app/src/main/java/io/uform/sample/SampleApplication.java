package io.uform.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.ImportRuntimeHints;

/**
 * A Spring Boot service that runs its numeric work on the uform RAM executor the starter provides.
 */
@SpringBootApplication
@ImportRuntimeHints(SampleRuntimeHints.class)
public class SampleApplication {

	/**
	 * Starts the service.
	 * @param args command-line arguments, passed to Spring Boot
	 */
	public static void main(String[] args) {
		CloseOnSignal onSignal = new CloseOnSignal(System::exit).install();
		SpringApplication application = new SpringApplication(SampleApplication.class);
		application.addInitializers(onSignal::closing);
		application.run(args);
	}
}
