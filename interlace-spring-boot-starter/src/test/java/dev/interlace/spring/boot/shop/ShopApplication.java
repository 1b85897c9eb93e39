package dev.interlace.spring.boot.shop;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** A Spring Boot application with one stream ({@link Orders}) and one SQL model ({@code models/order_totals.sql}). */
@SpringBootApplication
public class ShopApplication {}
