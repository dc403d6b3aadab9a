/**
 * Commands for people: {@link io.uform.cli.UformInfo}, run as {@code scripts/uform-info}
 * or {@code java -jar uform-java-<version>-cli.jar}.
 */
package io.uform.cli;
