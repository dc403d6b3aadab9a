/**
 * Commands for people: {@link io.uform.cli.UformInfo}, run as {@code java -jar uform-java-<version>-cli.jar}.
 */
package io.uform.cli;
