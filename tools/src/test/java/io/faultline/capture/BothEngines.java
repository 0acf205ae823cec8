package io.faultline.capture;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A capture test that runs once per engine, {@code faultline record --engine uffd},
 * {@code --engine sigbus} and {@code --engine mprotect}: the same records, the same EVMS
 * semantics (issues 9 and 26). The test method takes the engine's name as its parameter.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@ParameterizedTest(name = "--engine {0}")
@ValueSource(strings = {"uffd", "sigbus", "mprotect"})
@interface BothEngines
{
}
